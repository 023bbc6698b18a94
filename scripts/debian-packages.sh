# Sourced by the setup scripts: `step` prints a progress line; `debian_packages P…` installs the
# Debian packages among P that are missing (apt-get, as root or through sudo), or says they are there.
step() { printf '\n[setup] %s\n' "$*"; }

debian_packages() {
  local missing=() p
  for p in "$@"; do dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p"); done
  if [ ${#missing[@]} -eq 0 ]; then
    step "Debian packages present"
    return
  fi
  step "installing Debian packages: ${missing[*]}"
  local SUDO=""
  [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
}
