#!/usr/bin/env python3
"""One-off reference check (not run by the tests): embeddings of real utterances by the authors' own
Resemblyzer 0.1.4 code (resemblyzer/voice_encoder.py + audio.py from the checked wheel) on real torch,
written to test/fixtures/resemblyzer-reference.json, which test/speakers-encoder.test.ts compares with
voxdex's ONNX Runtime encoder (cosine >= 0.999).

usage: VENV/bin/python bench/resemblyzer-reference.py WHEEL_DIR_EXTRACTED OUT_JSON
 (a throwaway venv with torch, numpy, librosa; webrtcvad is only used by preprocess_wav's silence
 trimming, which is not part of the check, so a stub stands in for it)
Each input: a 16 kHz 16-bit file from pocketsphinx-testdata, as int16 / 32768, normalize_volume(-30 dBFS,
increase_only) as preprocess_wav does, then VoiceEncoder.embed_utterance (rate 1.3, min_coverage 0.75).
"""
import json, sys, types, wave
import numpy as np

sys.modules['webrtcvad'] = types.ModuleType('webrtcvad')
sys.path.insert(0, sys.argv[1])
from resemblyzer import VoiceEncoder, audio  # noqa: E402
import torch  # noqa: E402

D = '/usr/share/pocketsphinx/test/data'
FILES = [f'{D}/librivox/sense_and_sensibility_01_austen_64kb-0{n}.wav' for n in (870, 880, 890, 920, 930)] + \
        [f'{D}/cards/00{n}.wav' for n in (1, 2, 3)] + [f'{D}/goforward.raw', f'{D}/numbers.raw']

def read(path):
    if path.endswith('.raw'):
        return np.fromfile(path, dtype='<i2')
    with wave.open(path) as w:
        assert w.getframerate() == 16000 and w.getsampwidth() == 2 and w.getnchannels() == 1, path
        return np.frombuffer(w.readframes(w.getnframes()), dtype='<i2')

enc = VoiceEncoder('cpu', verbose=False)
out = {'reference': 'Resemblyzer 0.1.4 (wheel sha256 8f12eb2f…dd1f) VoiceEncoder.embed_utterance on torch ' + torch.__version__,
       'input': 'int16/32768 → audio.normalize_volume(wav, -30, increase_only=True)', 'utterances': []}
for f in FILES:
    wav = (read(f).astype(np.float32) / 32768.0)
    wav = audio.normalize_volume(wav, -30, increase_only=True).astype(np.float32)
    e = enc.embed_utterance(wav)
    out['utterances'].append({'file': f.replace(D + '/', ''), 'samples': int(len(wav)), 'embedding': [round(float(x), 7) for x in e]})
    print(f, len(wav) / 16000, e[:3])
json.dump(out, open(sys.argv[2], 'w'))
