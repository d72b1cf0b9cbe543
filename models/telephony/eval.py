#!/usr/bin/env python3
"""Development evaluation for the telephony model (not part of the build): decodes a set with Debian's
pocketsphinx_batch (same engine and library as the addon) and prints WER and RTF.

usage: eval.py wideband OUT_DIR                  build the band-limited real wideband set into OUT_DIR/wb
       eval.py run SET_DIR TSV HMM [extra pocketsphinx args...]   (env PREFIX=ast-pcm- selects ids)
WER: both sides normalized (lower case, punctuation removed; references already spell numbers as words),
word Levenshtein distance summed over utterances / reference words. RTF: decoder CPU seconds / audio seconds.
"""
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile

MODEL = "/usr/share/pocketsphinx/model/en-us"
TD = "/usr/share/pocketsphinx/test/data"


def norm(s):
    s = re.sub(r"\(\d+\)", "", s.lower())
    s = re.sub(r"<s>|</s>|<sil>|\[noise\]|\+\+[a-z]+\+\+", " ", s)
    return re.sub(r"[^a-z' ]+", " ", s).split()


def lev(a, b):
    prev = list(range(len(b) + 1))
    for i, x in enumerate(a, 1):
        cur = [i]
        for j, y in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (x != y)))
        prev = cur
    return prev[-1]


def wideband(out):
    d = f"{out}/wb"
    os.makedirs(d, exist_ok=True)
    items = []
    for line in open(f"{TD}/librivox/transcription"):
        m = re.match(r"<s> (.*) </s> \((.*)\)", line.strip())
        items.append((f"{TD}/librivox/{m.group(2)}.wav", "lv-" + m.group(2)[-4:], m.group(1)))
    for line in open(f"{TD}/cards/cards.transcription"):
        m = re.match(r"<s> (.*?) *</s> \((.*)\)", line.strip())
        items.append((f"{TD}/cards/{m.group(2)}.wav", "cards-" + m.group(2), m.group(1)))
    items.append((f"-r 16000 -e signed -b 16 -c 1 -t raw {TD}/goforward.raw", "goforward", "go forward ten meters"))
    for n in ["Front_Center", "Front_Left", "Front_Right", "Rear_Center", "Rear_Left", "Rear_Right",
              "Side_Left", "Side_Right"]:
        items.append((f"/usr/share/sounds/alsa/{n}.wav", "alsa-" + n, n.replace("_", " ").lower()))
    with open(f"{out}/wb.tsv", "w") as f:
        for src, uid, text in items:
            for law in ["mu-law"]:
                u = f"{uid}-{law}"
                subprocess.run(f"sox -R -V1 {src} -r 8000 -c 1 -b 16 {d}/{u}.tmp.wav sinc 300-3400 && "
                               f"sox -R -V1 {d}/{u}.tmp.wav -e {law} -t wav {d}/{u}.g.wav && "
                               f"sox -R -D -V1 {d}/{u}.g.wav -e signed -b 16 -r 16000 {d}/{u}.wav && "
                               f"rm {d}/{u}.tmp.wav {d}/{u}.g.wav", shell=True, check=True)
                f.write(f"{u}\t{text}\n")


def run(setdir, tsv, hmm, extra):
    prefix = os.environ.get("PREFIX", "")
    refs = [l.rstrip("\n").split("\t") for l in open(tsv)]
    refs = [(u, t) for u, t in refs if u.startswith(prefix)][::int(os.environ.get("STEP", "1"))]
    tmp = tempfile.mkdtemp()
    with open(f"{tmp}/ctl", "w") as f:
        f.writelines(u + "\n" for u, _ in refs)
    dur = 0.0
    for u, _ in refs:
        dur += (os.path.getsize(f"{setdir}/{u}.wav") - 44) / 32000.0
    args = ["pocketsphinx_batch", "-hmm", hmm, "-lm", os.environ.get("LM", f"{MODEL}/en-us.lm.bin"),
            "-dict", os.environ.get("DICT", f"{MODEL}/cmudict-en-us.dict"), "-ctl", f"{tmp}/ctl",
            "-cepdir", setdir, "-cepext", ".wav", "-adcin", "yes", "-adchdr", "44", "-samprate", "16000",
            "-hyp", f"{tmp}/hyp", "-logfn", f"{tmp}/log"] + extra
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(["nice"] + args, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    hyps = {}
    for line in open(f"{tmp}/hyp"):
        m = re.match(r"^(.*?)\s*\((\S+)(?: -?\d+)?\)\s*$", line.rstrip("\n"))
        if m:
            hyps[m.group(2)] = m.group(1)
    err = n = 0
    for u, t in refs:
        r = norm(t)
        h = norm(hyps.get(u, ""))
        e = lev(r, h)
        err += e
        n += len(r)
        if os.environ.get("SHOW"):
            print(f"{e:3d} {u}\n    REF {' '.join(r)}\n    HYP {' '.join(h)}")
    shutil.rmtree(tmp)
    print(f"WER {100.0 * err / n:.1f}% ({err}/{n} words, {len(refs)} utts)  RTF {cpu / dur:.3f}  "
          f"[{os.path.basename(tsv)} {prefix or '*'} hmm={hmm} {' '.join(extra)}]")


if __name__ == "__main__":
    if sys.argv[1] == "wideband":
        wideband(sys.argv[2])
    else:
        run(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:])
