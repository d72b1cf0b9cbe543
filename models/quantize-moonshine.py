#!/usr/bin/env python3
"""Derives int8 Moonshine files from the folded float32 ones (models/fold-moonshine.py).

    quantize-moonshine.py FOLDED_DIR OUT_DIR

Every MatMul with a constant weight, in the encoder and in both branches of the merged decoder's If,
becomes ONNX Runtime's MatMulNBits (onnxruntime.quantization's MatMulNBitsQuantizer): the weight is
stored as 8-bit integers, symmetric, with one float scale per block of 32 input rows of each output
column, and `accuracy_level` 4 makes ONNX Runtime multiply in int8 — each row of the input is
quantized per block of 32 values at run time (VNNI instructions where the CPU has them). Blocks of 32
keep the rounding local: a dynamic quantization with one scale per input tensor (`quantize_dynamic`,
DynamicQuantizeLinear) was tried first and changed words on the real sets (docs/moonshine.md). The
attention products (activation x activation), the encoder's convolutions, the token embedding (a
Gather) and everything else stay float32. Pure function of the input bytes and the pinned tools
(models/fold-requirements.txt, models/quantize-requirements.txt): the output's sha256 is recorded
and checked by models/quantize-moonshine.sh.
"""
import hashlib
import logging
import os
import sys

import onnx
from onnxruntime.quantization.matmul_nbits_quantizer import MatMulNBitsQuantizer

BITS, BLOCK, ACCURACY_LEVEL = 8, 32, 4


def main():
    if len(sys.argv) != 3:
        raise SystemExit('usage: quantize-moonshine.py FOLDED_DIR OUT_DIR')
    src, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    logging.disable(logging.INFO)  # one line per MatMul otherwise
    for name in ('encoder_model', 'decoder_model_merged'):
        # Read here and handed over in memory: the source directory is never written to.
        q = MatMulNBitsQuantizer(onnx.load(os.path.join(src, name + '.onnx')), bits=BITS, block_size=BLOCK, is_symmetric=True,
                                 accuracy_level=ACCURACY_LEVEL)
        q.process()
        dst = os.path.join(out, name + '.onnx')
        q.model.save_model_to_file(dst, use_external_data_format=False)
        sha = hashlib.sha256(open(dst, 'rb').read()).hexdigest()
        print(f'{name}: {os.path.getsize(dst)} bytes, sha256 {sha}')


if __name__ == '__main__':
    main()
