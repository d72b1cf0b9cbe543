# Sourced by the scripts that derive Moonshine files at install (models/fold-moonshine.sh,
# models/quantize-moonshine.sh): the pinned Python tools, the checksum check and the derivation itself,
# written once.
#   model_tools_venv VENV REQS...  installs the hash-pinned requirement files into VENV unless there
#   verify_files DIR ENTRY...      0 when every "name sha256" ENTRY is in DIR with that checksum
#   derive_moonshine               the whole derivation, from the caller's variables (below)

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

# Derives OUT from SRC with the Python script PY in VENV (pinned by the files REQS), then copies the
# tokenizer and licence; OUT is replaced in one rename only when every FILES entry has its recorded
# sha256, else nothing is installed. Nothing is done when OUT already has them. The caller sets:
# SRC OUT VENV PY, arrays FILES ("name sha256"), INPUTS (files PY reads from SRC), REQS; PREV (the step
# that makes SRC), WHAT (the derivation's name: "folded", "int8"), DOING ("folding"), SIZE (a note).
derive_moonshine() {
  verify_files "$OUT" "${FILES[@]}" 2>/dev/null && return 0
  local f
  for f in "${INPUTS[@]}" tokenizer.bin LICENSE; do
    [ -f "$SRC/$f" ] || { echo "voxdex: $SRC/$f is missing; run bash $PREV first" >&2; return 1; }
  done
  model_tools_venv "$VENV" "${REQS[@]}" || { echo "voxdex: the $WHAT Moonshine model was not made" >&2; return 1; }
  mkdir -p "$(dirname "$OUT")"
  trap 'rm -rf "${DERIVE_TMP:-}"' EXIT # a global: the trap runs after this function has returned
  DERIVE_TMP=$(mktemp -d "$(dirname "$OUT")/.$WHAT.XXXXXX")
  local tmp=$DERIVE_TMP
  echo "voxdex: $DOING the Moonshine model ($SRC -> $OUT; $SIZE)"
  "$VENV/bin/python" "$PY" "$SRC" "$tmp" || { echo "voxdex: $DOING the Moonshine model failed; nothing was installed" >&2; return 1; }
  cp "$SRC/tokenizer.bin" "$SRC/LICENSE" "$tmp/"
  verify_files "$tmp" "${FILES[@]}" || {
    echo "voxdex: the $WHAT Moonshine files differ from the checksums recorded in $0 (different tool versions?); nothing was installed" >&2; return 1; }
  chmod 755 "$tmp"
  rm -rf "$OUT.tmp" && mv "$tmp" "$OUT.tmp" && rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
  echo "voxdex: $WHAT Moonshine model installed in $OUT"
}
