#!/usr/bin/env python3
"""Reconstructs a Sphinx-3 `mixture_weights` file from PocketSphinx's quantized `sendump`.

Debian's en-us model ships its mixture weights only as `sendump` (written by sphinxtrain's
mk_s2sendump -pocketsphinx yes), while `bw` and `map_adapt` read `mixture_weights`.
sendump layout (little endian): int32-length-prefixed NUL-terminated header strings until a 0 length
(they include "feature_count N"), then int32 rows (#codewords) and int32 columns (#senones), then for
each feature stream rows*columns unsigned bytes, codeword-major: byte[f][cw][sen] = -log_b(w) >> 10 with
b = 1.0001 (sphinxbase logmath, SENSCR_SHIFT 10), i.e. w = exp(-byte * 1024 * ln 1.0001).
The quantisation floors, so each (senone, stream) row is renormalised to sum to 1.
Output: s3 header, byte-order magic, int32 n_senone n_feat n_codeword, int32 total, float32
[senone][feat][codeword] (no checksum, declared by leaving out chksum0).

usage: sendump-to-mixw.py SENDUMP MIXTURE_WEIGHTS
"""
import array
import math
import struct
import sys


def main():
    src, dst = sys.argv[1:3]
    data = open(src, "rb").read()
    off, n_feat = 0, None
    while True:
        (n,) = struct.unpack_from("<i", data, off)
        if not 0 <= n < 1000:
            sys.exit(f"sendump-to-mixw: {src}: bad header string length {n} (not a little-endian sendump)")
        off += 4
        if n == 0:
            break
        s = data[off:off + n].rstrip(b"\0").decode("ascii", "replace")
        off += n
        if s.startswith("feature_count "):
            n_feat = int(s.split()[1])
    rows, cols = struct.unpack_from("<ii", data, off)
    off += 8
    if n_feat is None or len(data) - off != n_feat * rows * cols:
        sys.exit(f"sendump-to-mixw: {src}: expected {n_feat} x {rows} x {cols} bytes of weights, "
                 f"found {len(data) - off}")
    k = 1024 * math.log(1.0001)
    table = [math.exp(-v * k) for v in range(256)]
    body = data[off:]
    out = array.array("f", bytes(4 * n_feat * rows * cols))
    for f in range(n_feat):
        base = f * rows * cols
        for cw in range(rows):
            row = body[base + cw * cols: base + (cw + 1) * cols]
            for sen, v in enumerate(row):
                out[(sen * n_feat + f) * rows + cw] = table[v]
    for i in range(0, len(out), rows):
        tot = sum(out[i:i + rows])
        for j in range(i, i + rows):
            out[j] /= tot
    if sys.byteorder != "little":
        out.byteswap()
    with open(dst, "wb") as w:
        w.write(b"s3\nversion 1.0\nendhdr\n")
        w.write(struct.pack("<I", 0x11223344))
        w.write(struct.pack("<iiii", cols, n_feat, rows, cols * n_feat * rows))
        w.write(out.tobytes())
    print(f"sendump-to-mixw: {cols} senones x {n_feat} streams x {rows} codewords", file=sys.stderr)


if __name__ == "__main__":
    main()
