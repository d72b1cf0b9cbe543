#!/usr/bin/env python3
"""Reads Resemblyzer's pretrained.pt (PyTorch's legacy, non-zip serialisation) with the standard library
only (no torch, no numpy) and writes the encoder's weights as one little-endian float32 file plus a JSON
manifest: each tensor's name, shape and offset (in floats), and the checksums of the source files.

usage: resemblyzer-convert.py PRETRAINED_PT OUT_DIR WHEEL_SHA256 PT_SHA256 PT_GIT_BLOB

The legacy layout: pickle(magic number), pickle(protocol version), pickle(sys info), pickle(the object,
whose tensors are persistent ids ('storage', type, key, location, numel, view_metadata)), pickle(the
storage keys, in the order their data follows), then for each storage: int64 element count + raw data.
"""
import hashlib, io, json, os, pickle, struct, sys

MAGIC = 0x1950A86A20F9469CFC6C

class Storage:
    def __init__(self, dtype, key, numel):
        self.dtype, self.key, self.numel = dtype, key, numel

class Tensor:
    def __init__(self, storage, offset, size, stride):
        self.storage, self.offset, self.size, self.stride = storage, offset, tuple(size), tuple(stride)

def rebuild_tensor_v2(storage, offset, size, stride, requires_grad=False, hooks=None, metadata=None):
    return Tensor(storage, offset, size, stride)

class Unpickler(pickle.Unpickler):
    def __init__(self, f, storages):
        super().__init__(f)
        self.storages = storages
    def find_class(self, module, name):
        if module == 'torch._utils' and name == '_rebuild_tensor_v2':
            return rebuild_tensor_v2
        if module == 'torch' and name.endswith('Storage'):
            return name  # only its name is used (FloatStorage)
        if module == 'collections' and name == 'OrderedDict':
            import collections
            return collections.OrderedDict
        raise pickle.UnpicklingError(f'unexpected global {module}.{name} in the model file')
    def persistent_load(self, pid):
        kind, dtype, key, _location, numel, view = pid
        if kind != 'storage' or view is not None:
            raise pickle.UnpicklingError(f'unsupported persistent id {pid!r}')
        if key not in self.storages:
            self.storages[key] = Storage(dtype, key, numel)
        return self.storages[key]

def read_legacy(path):
    with open(path, 'rb') as f:
        data = f.read()
    f = io.BytesIO(data)
    if pickle.load(f) != MAGIC:
        raise SystemExit(f'{path}: not a legacy PyTorch file (bad magic number)')
    pickle.load(f)  # protocol version
    pickle.load(f)  # sys info (little-endian, type sizes)
    storages = {}
    obj = Unpickler(f, storages).load()
    keys = pickle.load(f)
    raw = {}
    for key in keys:
        (numel,) = struct.unpack('<q', f.read(8))
        st = storages[key]
        if st.dtype != 'FloatStorage' or numel != st.numel:
            raise SystemExit(f'{path}: storage {key}: {st.dtype} of {numel} elements; expected float32')
        raw[key] = f.read(4 * numel)
    return obj, raw

def tensor_bytes(t, raw):
    """The tensor's float32 values in row-major order (the model's tensors are contiguous)."""
    expect, acc = [], 1
    for d in reversed(t.size):
        expect.insert(0, acc)
        acc *= d
    if tuple(expect) != t.stride:
        raise SystemExit(f'non-contiguous tensor {t.size} {t.stride}')
    buf = raw[t.storage.key]
    return buf[4 * t.offset: 4 * (t.offset + acc)]

def main():
    pt, out, wheel_sha, pt_sha, pt_blob = sys.argv[1:6]
    obj, raw = read_legacy(pt)
    state = obj['model_state']
    names = ['lstm.weight_ih_l0', 'lstm.weight_hh_l0', 'lstm.bias_ih_l0', 'lstm.bias_hh_l0',
             'lstm.weight_ih_l1', 'lstm.weight_hh_l1', 'lstm.bias_ih_l1', 'lstm.bias_hh_l1',
             'lstm.weight_ih_l2', 'lstm.weight_hh_l2', 'lstm.bias_ih_l2', 'lstm.bias_hh_l2',
             'linear.weight', 'linear.bias']
    os.makedirs(out, exist_ok=True)
    tensors, offset, blob = [], 0, bytearray()
    for n in names:
        t = state[n]
        b = tensor_bytes(t, raw)
        tensors.append({'name': n, 'shape': list(t.size), 'offset': offset})
        offset += len(b) // 4
        blob += b
    weights = os.path.join(out, 'encoder.f32')
    with open(weights, 'wb') as f:
        f.write(blob)
    manifest = {
        'model': 'Resemblyzer 0.1.4 GE2E voice encoder (resemble-ai/Resemblyzer, Apache-2.0)',
        'source': {'wheel': 'Resemblyzer-0.1.4-py3-none-any.whl', 'wheelSha256': wheel_sha,
                   'member': 'resemblyzer/pretrained.pt', 'sha256': pt_sha, 'gitBlob': pt_blob},
        'layout': 'little-endian float32, row-major, torch LSTM gate order i, f, g, o',
        'weights': 'encoder.f32',
        'weightsSha256': hashlib.sha256(blob).hexdigest(),
        'floats': offset,
        'tensors': tensors,
        'hparams': {'sampleRate': 16000, 'melWindowMs': 25, 'melStepMs': 10, 'melChannels': 40,
                    'partialFrames': 160, 'hidden': 256, 'layers': 3, 'embedding': 256},
    }
    with open(os.path.join(out, 'encoder.json'), 'w') as f:
        json.dump(manifest, f, indent=1)
    print(f'voxdex: wrote {len(names)} tensors ({offset} floats) to {weights}')

if __name__ == '__main__':
    main()
