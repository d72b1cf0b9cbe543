#!/usr/bin/env python3
"""Builds the telephony audio sets (deterministic: fixed sentence order, voices, gains, noise seeds).

usage: make-audio.py CORPUS_DIR OUT_DIR SET [LIMIT]
  SET = adapt      Asterisk a-l prompts (PCM, mu-law, A-law) + synthetic adaptation sentences (several voices)
        heldout    Asterisk m-z prompts (PCM, mu-law, A-law) + held-out sentences in a held-out voice
Writes OUT_DIR/<SET>/<id>.wav (16 kHz 16-bit mono: the 8 kHz telephone signal upsampled, exactly what
the decoder's front end sees) and OUT_DIR/<SET>.tsv (id<TAB>reference text).
Every synthetic utterance goes through a telephone channel: 8 kHz, 300-3400 Hz band-pass, a level
change, a little band-limited noise, and a G.711 (mu-law or A-law) round trip.
"""
import concurrent.futures as cf
import os
import random
import shlex
import subprocess
import sys

ASTERISK = "/usr/share/asterisk/sounds/en_US_f_Allison"
ADAPT_VOICES = ["festival:kal_diphone", "flite:kal16", "flite:awb", "flite:rms", "flite:kal",
                "espeak:en-us+m3", "espeak:en-us+f2", "espeak:en-us+m7"]
HELDOUT_VOICES = ["flite:slt"]


def sh(cmd):
    p = subprocess.run(cmd, shell=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    if p.returncode != 0:
        raise RuntimeError(f"command failed ({p.returncode}): {cmd}\n{p.stderr.decode(errors='replace')[-400:]}")


def tts(voice, text, out, rate):
    kind, name = voice.split(":")
    q = shlex.quote(text)
    if kind == "flite":
        sh(f"flite -voice {name} -t {q} -o {out}")
    elif kind == "festival":
        sh(f"echo {q} | text2wave -eval '(voice_{name})' -o {out}")
    else:
        sh(f"espeak-ng -v {name} -s {rate} -w {out} {q}")


def channel(src, out, law, gain_db, noise, seed):
    """8 kHz telephone channel, then up to 16 kHz for the wideband front end."""
    tmp8 = out + ".8k.wav"
    tmpg = out + ".g711.wav"
    sh(f"sox -R -V1 {src} -r 8000 -c 1 -b 16 {tmp8} sinc 300-3400 gain -n {gain_db}")
    dur = subprocess.run(["soxi", "-D", tmp8], capture_output=True, text=True, check=True).stdout.strip()
    noisecmd = (f"sox -R -V1 -n -r 8000 -c 1 -b 16 -p synth {dur} whitenoise vol {noise} "
                f"sinc 300-3400")
    # sox -R fixes the noise generator's seed; vary it per utterance through a short silent offset.
    sh(f"sox -R -V1 -m {tmp8} \"|{noisecmd} pad {seed % 7 * 0.001} 0 trim 0 {dur}\" "
       f"-e {law} -t wav {tmpg}")
    sh(f"sox -R -D -V1 {tmpg} -e signed-integer -b 16 -r 16000 {out}")
    os.remove(tmp8)
    os.remove(tmpg)


def asterisk_job(name, out, law):
    src = f"{ASTERISK}/{name}.wav"
    if law == "pcm":
        sh(f"sox -R -D -V1 {src} -e signed-integer -b 16 -r 16000 {out}")
    else:
        tmp = out + ".g711.wav"
        sh(f"sox -R -V1 {src} -e {law} -t wav {tmp}")
        sh(f"sox -R -D -V1 {tmp} -e signed-integer -b 16 -r 16000 {out}")
        os.remove(tmp)


def synth_job(i, voice, text, out):
    r = random.Random(1000 + i)
    raw = out + ".tts.wav"
    tts(voice, text, raw, r.choice([140, 160, 175]))
    channel(raw, out, r.choice(["mu-law", "a-law"]), r.choice([-3, -6, -9, -14]),
            r.choice([0.001, 0.003, 0.006]), i)
    os.remove(raw)


def main():
    corpus, outdir, which = sys.argv[1:4]
    limit = int(sys.argv[4]) if len(sys.argv) > 4 else 10**9
    d = f"{outdir}/{which}"
    os.makedirs(d, exist_ok=True)
    jobs, refs = [], []
    ast = [l.rstrip("\n").split("\t") for l in open(f"{corpus}/asterisk-{which}.tsv")]
    ast = [(n, t) for n, t in ast if os.path.exists(f"{ASTERISK}/{n}.wav")]
    laws = ["pcm", "mu-law", "a-law"]  # adapt: the a-l prompts three times (PCM and both G.711 laws)
    for law in laws:
        for n, t in ast:
            uid = f"ast-{law}-{n.replace('/', '_')}"
            jobs.append((asterisk_job, (n, f"{d}/{uid}.wav", law)))
            refs.append((uid, t))
    sents = [l.strip() for l in open(f"{corpus}/synth-{which}.txt")][:limit]
    voices = ADAPT_VOICES if which == "adapt" else HELDOUT_VOICES
    for i, s in enumerate(sents):
        v = voices[i % len(voices)]
        uid = f"syn-{i:04d}-{v.replace(':', '-').replace('+', '-')}"
        jobs.append((synth_job, (i, v, s, f"{d}/{uid}.wav")))
        refs.append((uid, s))
    todo = [(f, a) for f, a in jobs if not os.path.exists(a[-2] if f is synth_job else a[1])]
    workers = int(os.environ.get("VOXDEX_JOBS", "2"))
    done = 0
    with cf.ThreadPoolExecutor(workers) as ex:
        futs = [ex.submit(f, *a) for f, a in todo]
        for fu in cf.as_completed(futs):
            fu.result()
            done += 1
            if done % 100 == 0 or done == len(todo):
                print(f"  audio {which}: {done}/{len(todo)}", file=sys.stderr, flush=True)
    with open(f"{outdir}/{which}.tsv", "w") as f:
        f.writelines(f"{u}\t{t}\n" for u, t in refs)


if __name__ == "__main__":
    main()
