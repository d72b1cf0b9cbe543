#!/usr/bin/env bash
# Builds the `en-us-8k` telephony acoustic model into models/build/en-us-8k/ from Debian's stock
# pocketsphinx-en-us model: telephone-channel adaptation (3-class MLLR, then MAP) on real 8 kHz Asterisk prompts
# (names a-l only; m-z are the held-out test set) and synthetic speech from several TTS voices passed
# through a G.711 telephone channel. The front end is unchanged (16 kHz, the stock feat.params): 8 kHz
# audio is upsampled to 16 kHz before decoding. See docs/telephony.md.
#
# Cached: the stamp file records a hash of every pinned input (stock model, dictionary, prompt audio and
# text, TTS and toolkit versions, these scripts); a second run with the same inputs does nothing.
# Deterministic: fixed sentence list and seeds, sox -R. Needs the runtime list of scripts/apt-packages.sh.
# Env: VOXDEX_JOBS (parallel jobs, default 2), VOXDEX_TELEPHONY_FORCE=1 (rebuild even when cached),
# VOXDEX_TELEPHONY_KEEP=1 (keep the work directory models/build/.work-en-us-8k for inspection).
set -euo pipefail
cd "$(dirname "$0")/.."

T0=$(date +%s)
HERE=models/telephony
OUT=models/build/en-us-8k
WORK=models/build/.work-en-us-8k
STOCK=/usr/share/pocketsphinx/model/en-us/en-us
DICT=/usr/share/pocketsphinx/model/en-us/cmudict-en-us.dict
CORE_TXT=/usr/share/doc/asterisk-core-sounds-en/core-sounds-en.txt.gz
ASTERISK=/usr/share/asterisk/sounds/en_US_f_Allison
ST=/usr/lib/sphinxtrain
SYNTH_UTTS=${VOXDEX_TELEPHONY_SYNTH:-600}   # synthetic adaptation utterances (pinned default)
MAP_TAU=${VOXDEX_TELEPHONY_TAU:-}            # empty: map_adapt's Bayesian mean update (default)
export VOXDEX_JOBS=${VOXDEX_JOBS:-2}

fail() { echo "build-telephony: ERROR: $*" >&2; exit 1; }
step() { echo "build-telephony: [$1/7] $2 ($(( $(date +%s) - T0 )) s)"; }
trap 'rc=$?; [ $rc -eq 0 ] || echo "build-telephony: FAILED (exit $rc); work files kept in $WORK" >&2' EXIT

# --- preflight: every tool and input must exist ------------------------------------------------------
for tool in sox soxi flite text2wave espeak-ng sphinx_fe pocketsphinx_mdef_convert python3 sha256sum; do
  command -v "$tool" >/dev/null || fail "missing tool '$tool' (run: bash scripts/apt-packages.sh runtime)"
done
for tool in bw mllr_solve mllr_transform map_adapt; do
  [ -x "$ST/$tool" ] || fail "missing $ST/$tool (Debian package sphinxtrain)"
done
for f in "$STOCK/means" "$STOCK/sendump" "$STOCK/mdef" "$DICT" "$CORE_TXT" "$ASTERISK/activated.wav"; do
  [ -e "$f" ] || fail "missing input $f (packages pocketsphinx-en-us, asterisk-core-sounds-en(-wav))"
done
[ -d /usr/share/festival/voices/english/kal_diphone ] || fail "missing festival voice kal_diphone (festvox-kallpc8k)"

# One build at a time (install.sh and a test may both start one): the second waits, then finds it cached.
mkdir -p models/build
exec 9> models/build/.en-us-8k.lock
flock 9

# --- cache: hash of the pinned inputs ----------------------------------------------------------------
versions=$(dpkg-query -W -f='${Package}=${Version}\n' pocketsphinx-en-us sphinxtrain sphinxbase-utils \
  pocketsphinx sox flite festival festvox-kallpc8k espeak-ng asterisk-core-sounds-en-wav 2>/dev/null || true)
want=$( { echo "synth=$SYNTH_UTTS tau=$MAP_TAU"; echo "$versions";
          for f in "$0" "$HERE"/{corpus,make-audio,sendump-to-mixw,mllr-classes}.py "$STOCK"/* "$DICT" "$CORE_TXT"; do
            sha256sum < "$f"; done;
          find "$ASTERISK" -name '*.wav' -printf '%P %s\n' | LC_ALL=C sort; } | sha256sum | cut -d' ' -f1)
if [ "${VOXDEX_TELEPHONY_FORCE:-}" != 1 ] && [ -f "$OUT/stamp" ] && [ "$(cat "$OUT/stamp")" = "$want" ]; then
  echo "build-telephony: en-us-8k is up to date ($OUT, $(du -sh "$OUT" | cut -f1)), cached"
  exit 0
fi
echo "build-telephony: building en-us-8k into $OUT (about 2-3 minutes on 2 idle cores)"
rm -rf "$WORK" && mkdir -p "$WORK"

step 1 "text corpus (Asterisk prompts a-l, generated sentences)"
python3 "$HERE/corpus.py" "$CORE_TXT" "$DICT" "$WORK"

step 2 "adaptation audio: telephone channel, 8 kHz G.711, upsampled to 16 kHz"
nice python3 "$HERE/make-audio.py" "$WORK" "$WORK/audio" adapt "$SYNTH_UTTS"

step 3 "features (stock feat.params)"
mkdir -p "$WORK/mfc" "$WORK/base"
cut -f1 "$WORK/audio/adapt.tsv" > "$WORK/adapt.ctl"
awk -F'\t' '{print "<s> " $2 " </s> (" $1 ")"}' "$WORK/audio/adapt.tsv" > "$WORK/adapt.lsn"
nice sphinx_fe -argfile "$STOCK/feat.params" -samprate 16000 -c "$WORK/adapt.ctl" -di "$WORK/audio/adapt" \
  -do "$WORK/mfc" -ei wav -eo mfc -mswav yes > "$WORK/fe.log" 2>&1 || fail "sphinx_fe failed: see $WORK/fe.log"
cp "$STOCK"/* "$WORK/base/"
pocketsphinx_mdef_convert -text "$STOCK/mdef" "$WORK/base/mdef.txt" > "$WORK/mdef.log" 2>&1 \
  || fail "mdef conversion failed: see $WORK/mdef.log"
python3 "$HERE/sendump-to-mixw.py" "$STOCK/sendump" "$WORK/base/mixture_weights"

# bw over the adaptation set, split in VOXDEX_JOBS parts run in parallel. $1 = model dir, $2 = accum prefix
run_bw() {
  local hmm=$1 acc=$2 pids=() i
  for i in $(seq 1 "$VOXDEX_JOBS"); do
    mkdir -p "$acc$i"
    nice "$ST/bw" -hmmdir "$hmm" -moddeffn "$WORK/base/mdef.txt" -ts2cbfn .ptm. -feat 1s_c_d_dd \
      -svspec 0-12/13-25/26-38 -cmn batch -agc none -dictfn "$DICT" -fdictfn "$STOCK/noisedict" \
      -ctlfn "$WORK/adapt.ctl" -lsnfn "$WORK/adapt.lsn" -cepdir "$WORK/mfc" -timing no \
      -npart "$VOXDEX_JOBS" -part "$i" -accumdir "$acc$i" > "$acc$i.log" 2>&1 &
    pids+=($!)
  done
  for i in "${!pids[@]}"; do wait "${pids[$i]}" || fail "bw failed: see $acc$((i + 1)).log"; done
  ACCS=$(seq -s, -f "$acc%g" 1 "$VOXDEX_JOBS")
}

step 4 "Baum-Welch statistics on the stock model"
run_bw "$WORK/base" "$WORK/acc-a"

step 5 "MLLR: one transform per class (vowels, consonants, silence/fillers), baked into the means"
# Three regression classes beat one global transform on the held-out sets (docs/telephony.md, row 10).
python3 "$HERE/mllr-classes.py" "$WORK/base/mdef.txt" "$WORK/cb2mllr"
mkdir -p "$WORK/mllr"
cp "$WORK/base"/{mdef,mdef.txt,noisedict,transition_matrices,variances,mixture_weights,feat.params,sendump} "$WORK/mllr/"
"$ST/mllr_solve" -meanfn "$WORK/base/means" -varfn "$WORK/base/variances" -outmllrfn "$WORK/mllr_matrix" \
  -cb2mllrfn "$WORK/cb2mllr" -accumdir "$ACCS" > "$WORK/mllr_solve.log" 2>&1 || fail "mllr_solve failed: see $WORK/mllr_solve.log"
"$ST/mllr_transform" -inmeanfn "$WORK/base/means" -outmeanfn "$WORK/mllr/means" -mllrmat "$WORK/mllr_matrix" \
  -cb2mllrfn "$WORK/cb2mllr" > "$WORK/mllr_transform.log" 2>&1 || fail "mllr_transform failed: see $WORK/mllr_transform.log"

step 6 "MAP: Baum-Welch on the MLLR model, then MAP update of the Gaussian means"
run_bw "$WORK/mllr" "$WORK/acc-b"
mkdir -p "$WORK/map"
tau=(); [ -n "$MAP_TAU" ] && tau=(-bayesmean no -fixedtau yes -tau "$MAP_TAU")
"$ST/map_adapt" -moddeffn "$WORK/base/mdef.txt" -ts2cbfn .ptm. -meanfn "$WORK/mllr/means" \
  -varfn "$WORK/mllr/variances" -mixwfn "$WORK/mllr/mixture_weights" -tmatfn "$WORK/mllr/transition_matrices" \
  -accumdir "$ACCS" "${tau[@]}" -mapmeanfn "$WORK/map/means" -mapvarfn "$WORK/map/variances" \
  -mapmixwfn "$WORK/map/mixture_weights" -maptmatfn "$WORK/map/transition_matrices" \
  > "$WORK/map_adapt.log" 2>&1 || fail "map_adapt failed: see $WORK/map_adapt.log"

# Only the means are taken from MAP: MAP of variances, mixture weights and transitions on this little
# (one real speaker, synthetic others) data made held-out WER much worse (docs/telephony.md).
step 7 "model files into $OUT"
rm -rf "$OUT.tmp" && mkdir -p "$OUT.tmp"
cp "$WORK/map/means" "$OUT.tmp/means"
cp "$STOCK"/{mdef,noisedict,feat.params,variances,transition_matrices,sendump} "$OUT.tmp/"
cat > "$OUT.tmp/README" <<EOF
en-us-8k: telephony adaptation of Debian's pocketsphinx-en-us (3-class MLLR, then MAP of the means), built by
models/build-telephony.sh. Input: 8 kHz telephone audio upsampled to 16 kHz (band-limited resampler);
decode with -samprate 16000 and the stock front end (feat.params unchanged).
Adaptation data: $(wc -l < "$WORK/audio/adapt.tsv") utterances: $(grep -c '^ast-' "$WORK/audio/adapt.tsv") real (Asterisk prompts a-l as PCM, mu-law and A-law), $(grep -c '^syn-' "$WORK/audio/adapt.tsv") synthetic telephone-channel.
EOF
echo "$want" > "$OUT.tmp/stamp"
rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
[ "${VOXDEX_TELEPHONY_KEEP:-}" = 1 ] || rm -rf "$WORK"
times > "$OUT/.cpu"  # children's CPU time: the last line (no subshell, so it counts this shell's children)
cpu=$(tail -1 "$OUT/.cpu" | awk '{print $1 " user + " $2 " sys"}') && rm -f "$OUT/.cpu"
echo "build-telephony: done: $OUT, $(du -sh "$OUT" | cut -f1), built in $(( $(date +%s) - T0 )) s (CPU: $cpu)"
