#!/usr/bin/env bash
# Sets up what the real-host tests (test/hosts) need, idempotently: the agent hosts at pinned
# versions, from npm, into .tools/hosts (git-ignored), and the Debian packages the tests use.
# Prints progress; skips finished steps. Needs root (or sudo) only for the apt step.
set -euo pipefail
cd "$(dirname "$0")/.."
HOSTS="$PWD/.tools/hosts"
# Exact versions: the tests and test/hosts/README.md state what these versions do.
PACKAGES=("@anthropic-ai/claude-code@2.1.328" "@openai/codex@0.169.0" "@github/copilot@1.0.102")
# The workspaces are git repositories (a step's evidence is a git tree); the scripted agent's
# commands use bash, base64 and `script` (bsdutils: a pseudo-terminal). Claude Code's sandbox,
# which sealed.test.mjs runs (`setup --seal`), needs bubblewrap and socat on Linux.
APT_PACKAGES=(git bash coreutils bsdutils bubblewrap socat)
# shellcheck source=scripts/debian-packages.sh
. "$PWD/scripts/debian-packages.sh"

debian_packages "${APT_PACKAGES[@]}"

# Each host asked its version in a scratch home (a host writes caches into its home on any start).
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
bin="$HOSTS/node_modules/.bin"
version() { HOME="$scratch" XDG_CONFIG_HOME="$scratch" XDG_CACHE_HOME="$scratch" CODEX_HOME="$scratch" COPILOT_HOME="$scratch" COPILOT_AUTO_UPDATE=false "$bin/$1" --version 2>/dev/null | head -1 || true; }
# A host is present when it runs and says its pinned version (its native binary comes in an
# optional platform package: a package.json alone is not enough).
absent() {
  local out=()
  for spec in "${PACKAGES[@]}"; do
    local name="${spec%@*}" cmd
    case "$name" in */claude-code) cmd=claude ;; */codex) cmd=codex ;; */copilot) cmd=copilot ;; esac
    [[ "$(version "$cmd")" == *"${spec##*@}"* ]] || out+=("$spec")
  done
  echo "${out[@]}"
}

want=$(absent)
if [ -n "$want" ]; then
  step "installing $want into .tools/hosts"
  mkdir -p "$HOSTS"
  [ -f "$HOSTS/package.json" ] || echo '{"name":"pi-plans-hosts","private":true}' > "$HOSTS/package.json"
  (
    cd "$HOSTS"
    # An outer `npm run` leaves npm_* variables (its prefix, its config): the install is its own.
    for v in $(env | grep -o '^npm_[A-Za-z0-9_]*' || true); do unset "$v"; done
    npm install --no-audit --no-fund --loglevel=error --save-exact "${PACKAGES[@]}"
  )
  still=$(absent)
  [ -z "$still" ] || { echo "setup-hosts: $still did not install" >&2; exit 1; }
else
  step "agent hosts present: ${PACKAGES[*]}"
fi

step "ready: $(version claude); $(version codex); $(version copilot)"
