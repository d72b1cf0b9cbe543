#!/usr/bin/env python3
"""Writes the codebook -> MLLR class map (s3 "cb2mllr" file) for mllr_solve/mllr_transform -cb2mllrfn.

usage: mllr-classes.py MDEF_TXT OUT
The stock model is phonetically tied (.ptm.): one codebook per context-independent phone, in mdef order.
Three regression classes: 0 vowels, 1 consonants, 2 silence and fillers (SIL, +NSN+, +SPN+, ...).
sphinxtrain's mk_mllr_class would write the same file but segfaults in Debian's build, so the s3 map
format is written here: ASCII header, byte-order magic, n_class, n_codebooks, the map (uint32 each),
then the s3 checksum (every uint32 after the magic, rotated left by 20 and summed).
"""
import struct
import sys

VOWELS = {"AA", "AE", "AH", "AO", "AW", "AY", "EH", "ER", "EY", "IH", "IY", "OW", "OY", "UH", "UW"}


def main():
    mdef, out = sys.argv[1:3]
    phones = [f[0] for f in (l.split() for l in open(mdef)) if len(f) > 4 and f[1:4] == ["-", "-", "-"]]
    if len(phones) < 30:
        raise SystemExit(f"mllr-classes: only {len(phones)} CI phones in {mdef}")
    cls = [2 if p == "SIL" or p.startswith("+") else 0 if p in VOWELS else 1 for p in phones]
    body = [3, len(cls)] + cls
    chk = 0
    for x in body:
        chk = (((chk << 20) | (chk >> 12)) + x) & 0xFFFFFFFF
    head = "s3\nversion 1.2\nchksum0 yes\n"
    head += " " * ((4 - (len(head) + 7) % 4) % 4) + "endhdr\n"
    with open(out, "wb") as f:
        f.write(head.encode() + struct.pack(f"<I{len(body)}II", 0x11223344, *body, chk))
    print(f"mllr-classes: {len(cls)} codebooks -> 3 classes ({cls.count(0)} vowels, {cls.count(1)} consonants, "
          f"{cls.count(2)} silence/filler)")


if __name__ == "__main__":
    main()
