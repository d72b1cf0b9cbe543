# Sourced by the model fetch scripts (from the repository root): makes sure python3 has pip, which
# downloads the authors' wheels (Debian's python3-pip when it is missing).
python3 -m pip --version >/dev/null 2>&1 || {
  echo "voxdex: python3 has no pip; installing Debian's python3-pip"
  SUDO=""; [ "$(id -u)" -eq 0 ] || SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends python3-pip >/dev/null
}
