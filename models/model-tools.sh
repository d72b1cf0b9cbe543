# Sourced by the scripts that derive model files at install (models/fold-moonshine.sh,
# models/quantize-moonshine.sh): the pinned Python tools and the checksum check, written once.
#   model_tools_venv VENV REQS...  installs the hash-pinned requirement files into VENV unless there
#   verify_files DIR ENTRY...  0 when every "name sha256" ENTRY is in DIR with that checksum

model_tools_venv() { # VENV REQUIREMENTS...
  local venv=$1 stamp=$1/.voxdex-reqs
  shift
  local want req args=()
  want=$(cat "$@")
  if [ -x "$venv/bin/python" ] && [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ]; then return 0; fi
  for req in "$@"; do args+=(-r "$req"); done
  echo "voxdex: installing the pinned model tools ($*) into $venv"
  rm -rf "$venv"
  python3 -m venv "$venv" || { echo "voxdex: python3 -m venv failed (Debian: apt-get install python3-venv)" >&2; return 1; }
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-input --require-hashes --only-binary=:all: "${args[@]}" || {
    echo "voxdex: installing $* failed (hash mismatch or PyPI unreachable)" >&2
    rm -rf "$venv"; return 1; }
  printf '%s' "$want" > "$stamp"
}

verify_files() {
  local dir=$1 entry name sum got
  shift
  for entry in "$@"; do
    read -r name sum <<<"$entry"
    [ -f "$dir/$name" ] || return 1
    got=$(sha256sum "$dir/$name" | cut -d' ' -f1)
    [ "$got" = "$sum" ] || { echo "voxdex: $dir/$name: sha256 $got, expected $sum" >&2; return 1; }
  done
}

install_dir() { # TMP OUT: replaces OUT by the finished TMP in one rename (readers never see half a model)
  local tmp=$1 out=$2
  chmod 755 "$tmp"
  rm -rf "$out.tmp" && mv "$tmp" "$out.tmp" && rm -rf "$out" && mv "$out.tmp" "$out"
}
