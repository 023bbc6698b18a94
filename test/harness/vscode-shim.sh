#!/usr/bin/env bash
# The executable @vscode/test-electron launches: see vscode-shim.mjs.
exec node "$(dirname "$0")/vscode-shim.mjs" "$@"
