#!/usr/bin/env python3
"""Derives int8 Moonshine files from the folded float32 ones (models/fold-moonshine.py).

    quantize-moonshine.py FOLDED_DIR OUT_DIR

Dynamic quantization of every MatMul with a constant weight, in the encoder and in both branches of
the merged decoder's If (onnxruntime.quantization.quantize_dynamic, EnableSubgraph): each weight
matrix becomes int8 with one scale per output channel (symmetric), and at run time each MatMul's
input is quantized to uint8 with one scale for the whole tensor (DynamicQuantizeLinear), multiplied
in integers (MatMulInteger; ONNX Runtime fuses it into DynamicQuantizeMatMul, VNNI instructions where
the CPU has them) and scaled back to float32. The attention products (activation x activation), the
convolutions of the encoder's front end, the token embedding (a Gather) and everything else stay
float32. Not exact: docs/moonshine.md gives the measured word error rates beside the float model's.
Pure function of the input bytes and the pinned tools (models/fold-requirements.txt): the output's
sha256 is recorded and checked by models/quantize-moonshine.sh.
"""
import hashlib
import logging
import os
import sys

import onnx
from onnxruntime.quantization import QuantType, quantize_dynamic


def main():
    if len(sys.argv) != 3:
        raise SystemExit('usage: quantize-moonshine.py FOLDED_DIR OUT_DIR')
    src, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    logging.getLogger().setLevel(logging.ERROR)  # its advice to run shape-inference pre-processing first: not needed for MatMul weights
    for name in ('encoder_model', 'decoder_model_merged'):
        dst = os.path.join(out, name + '.onnx')
        # The model is read here and handed over in memory: given a path, the quantizer writes scratch files
        # beside its input.
        model = onnx.load(os.path.join(src, name + '.onnx'))
        quantize_dynamic(model, dst, op_types_to_quantize=['MatMul'], per_channel=True,
                         weight_type=QuantType.QInt8, extra_options={'EnableSubgraph': True})
        sha = hashlib.sha256(open(dst, 'rb').read()).hexdigest()
        print(f'{name}: {os.path.getsize(dst)} bytes, sha256 {sha}')


if __name__ == '__main__':
    main()
