/**
 * A minimal writer of ONNX ModelProto (protobuf wire format) for small graphs built in memory from plain
 * weights: float32 initializers, int64 constants, nodes with int/float/ints attributes, float inputs and
 * outputs with symbolic dimensions. Field numbers are those of onnx/onnx.proto.
 */

class Writer {
  private parts: Uint8Array[] = [];
  private size = 0;

  private push(b: Uint8Array): void {
    this.parts.push(b);
    this.size += b.length;
  }

  varint(n: number | bigint): void {
    let v = BigInt.asUintN(64, BigInt(n));
    const out: number[] = [];
    while (v >= 0x80n) {
      out.push(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    out.push(Number(v));
    this.push(Uint8Array.from(out));
  }

  tag(field: number, wire: 0 | 2 | 5): void {
    this.varint((field << 3) | wire);
  }

  int(field: number, n: number): void {
    this.tag(field, 0);
    this.varint(n);
  }

  bytes(field: number, b: Uint8Array): void {
    this.tag(field, 2);
    this.varint(b.length);
    this.push(b);
  }

  string(field: number, s: string): void {
    this.bytes(field, new TextEncoder().encode(s));
  }

  float(field: number, f: number): void {
    this.tag(field, 5);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, f, true);
    this.push(b);
  }

  message(field: number, build: (w: Writer) => void): void {
    const w = new Writer();
    build(w);
    this.bytes(field, w.finish());
  }

  finish(): Uint8Array {
    const out = new Uint8Array(this.size);
    let at = 0;
    for (const p of this.parts) {
      out.set(p, at);
      at += p.length;
    }
    return out;
  }
}

export type Attr = number | number[] | { f: number };

export interface OnnxNode {
  op: string;
  inputs: string[];
  outputs: string[];
  attrs?: Record<string, Attr>;
}

export interface OnnxTensor {
  name: string;
  dims: number[];
  /** float32 values, or int64 values (as numbers) when `int64` is set. */
  data: Float32Array | number[];
  int64?: boolean;
}

export interface OnnxGraph {
  name: string;
  nodes: OnnxNode[];
  initializers: OnnxTensor[];
  /** Float tensors; a string dimension is symbolic. */
  inputs: { name: string; dims: (number | string)[] }[];
  outputs: { name: string; dims: (number | string)[] }[];
  opset: number;
}

const FLOAT = 1;
const INT64 = 7;

function tensor(w: Writer, t: OnnxTensor): void {
  for (const d of t.dims) w.int(1, d);
  w.int(2, t.int64 ? INT64 : FLOAT);
  w.string(8, t.name);
  let raw: Uint8Array;
  if (t.int64) {
    const b = new BigInt64Array(t.data.length);
    t.data.forEach((v, i) => (b[i] = BigInt(v)));
    raw = new Uint8Array(b.buffer);
  } else {
    const f = t.data instanceof Float32Array ? t.data : Float32Array.from(t.data);
    raw = new Uint8Array(f.buffer, f.byteOffset, f.byteLength);
  }
  w.bytes(9, raw);
}

function valueInfo(w: Writer, v: { name: string; dims: (number | string)[] }): void {
  w.string(1, v.name);
  w.message(2, (type) =>
    type.message(1, (tt) => {
      tt.int(1, FLOAT);
      tt.message(2, (shape) => {
        for (const d of v.dims) shape.message(1, (dim) => (typeof d === 'number' ? dim.int(1, d) : dim.string(2, d)));
      });
    }),
  );
}

function attribute(w: Writer, name: string, a: Attr): void {
  w.string(1, name);
  if (typeof a === 'number') {
    w.int(3, a);
    w.int(20, 2); // INT
  } else if (Array.isArray(a)) {
    for (const v of a) w.int(8, v);
    w.int(20, 7); // INTS
  } else {
    w.float(2, a.f);
    w.int(20, 1); // FLOAT
  }
}

/** The serialized ModelProto, ready for `InferenceSession.create(bytes)`. */
export function encodeModel(g: OnnxGraph): Uint8Array {
  const m = new Writer();
  m.int(1, 8); // ir_version
  m.string(2, 'voxdex');
  m.message(7, (graph) => {
    g.nodes.forEach((n, i) =>
      graph.message(1, (node) => {
        for (const x of n.inputs) node.string(1, x);
        for (const y of n.outputs) node.string(2, y);
        node.string(3, `${n.op.toLowerCase()}_${i}`);
        node.string(4, n.op);
        for (const [k, v] of Object.entries(n.attrs ?? {})) node.message(5, (a) => attribute(a, k, v));
      }),
    );
    graph.string(2, g.name);
    for (const t of g.initializers) graph.message(5, (w) => tensor(w, t));
    for (const v of g.inputs) graph.message(11, (w) => valueInfo(w, v));
    for (const v of g.outputs) graph.message(12, (w) => valueInfo(w, v));
  });
  m.message(8, (op) => {
    op.string(1, '');
    op.int(2, g.opset);
  });
  return m.finish();
}
