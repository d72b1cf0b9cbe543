"""The Python peer for bench/asr-throughput.ts: Moonshine run directly by ONNX Runtime for Python (the
newest release, installed by whoever runs the bench in a venv of their own; not a voxdex dependency),
no voxdex code. Whole files, greedy decoding with the key/value cache, as the model's reference does
(the same loop as bench/lib/moonshine-peer.mjs).

    PYTHON bench/lib/moonshine-peer.py MODEL_DIR THREADS FILE.raw...   (16 kHz s16le)
    -> JSON { "version", "hyps", "cpu", "wall" }   (model loading excluded)
"""
import json
import os
import sys
import time

import numpy as np
import onnxruntime as ort

model_dir, threads, files = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
opts = ort.SessionOptions()
opts.intra_op_num_threads = threads
opts.inter_op_num_threads = 1
opts.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
ext = 'onnx' if os.path.exists(os.path.join(model_dir, 'encoder_model.onnx')) else 'ort'
encoder = ort.InferenceSession(os.path.join(model_dir, f'encoder_model.{ext}'), opts, providers=['CPUExecutionProvider'])
decoder = ort.InferenceSession(os.path.join(model_dir, f'decoder_model_merged.{ext}'), opts, providers=['CPUExecutionProvider'])
decoder_inputs = {i.name for i in decoder.get_inputs()}

tok = open(os.path.join(model_dir, 'tokenizer.bin'), 'rb').read()
pieces, i = [], 0
while i < len(tok):
    n = tok[i]
    i += 1
    if n & 0x80:
        n = (n & 0x7F) + tok[i] * 128
        i += 1
    pieces.append(tok[i:i + n])
    i += n
names = [f'{l}.{a}.{b}' for l in range(8) for a in ('decoder', 'encoder') for b in ('key', 'value')]


def transcribe(pcm):
    hidden = encoder.run(None, {'input_values': pcm[None, :]})[0]
    feeds = {'encoder_hidden_states': hidden}
    if 'encoder_attention_bias' in decoder_inputs:  # voxdex's folded graphs (zeros: no frame masked)
        feeds['encoder_attention_bias'] = np.zeros((1, 1, 1, hidden.shape[1]), np.float32)
    for n in names:
        feeds[f'past_key_values.{n}'] = np.zeros((1, 8, 0, 52), np.float32)
    out_names = [o.name for o in decoder.get_outputs()]
    ids, last = [], 1
    for step in range(int(np.ceil(len(pcm) / 16000 * 6))):
        feeds['input_ids'] = np.array([[last]], np.int64)
        feeds['use_cache_branch'] = np.array([step > 0])
        out = dict(zip(out_names, decoder.run(None, feeds)))
        best = int(np.argmax(out['logits'][0, -1]))
        for n in names:
            if step == 0 or 'decoder' in n:
                feeds[f'past_key_values.{n}'] = out[f'present.{n}']
        if best == 2:
            break
        ids.append(best)
        last = best
    return b''.join(pieces[i] for i in ids if i > 2).decode('utf8', 'replace').replace('\u2581', ' ').strip()


hyps = {}
c0, t0 = time.process_time(), time.perf_counter()
for f in files:
    pcm = np.fromfile(f, np.int16).astype(np.float32) / 32768
    hyps[os.path.basename(f)[:-4]] = transcribe(pcm)
print(json.dumps({'version': ort.__version__, 'hyps': hyps, 'cpu': time.process_time() - c0, 'wall': time.perf_counter() - t0}))
