#!/usr/bin/env python3
"""Derives constant-folded ONNX files from Moonshine's official ORT-format files.

    fold-moonshine.py SRC_DIR OUT_DIR

The official `.ort` files store their weights as int8 and dequantize them (Cast -> Mul -> Add) inside
the graph; ORT-format models are not constant-folded when loaded, so that work, and the transpose of
the decoder's 32,768 x 416 output embedding, repeats on every run (about 70 % of a decoder step).
This script reads each ORT flatbuffer with the bindings shipped in the `onnxruntime` wheel, rebuilds
the graph as ONNX (If subgraphs included), evaluates every node whose inputs are all constants, and
writes `encoder_model.onnx` and `decoder_model_merged.onnx`. A constant computed inside a subgraph
(the embedding transpose, the same in both branches of the decoder's If) is hoisted to the outer graph
once. Nothing is approximated: the folded graph computes the same float32 values as the original's
nodes did. Pure function of the input bytes and the pinned package versions (models/fold-requirements.txt),
so the output's sha256 is reproducible and is checked by models/fold-moonshine.sh.
"""
import hashlib
import os
import sys

import numpy as np
import onnx
from onnx import helper, numpy_helper, TensorProto
from onnx.reference import ReferenceEvaluator
from onnxruntime.tools.ort_format_model.ort_flatbuffers_py.fbs import (
    AttributeType,
    InferenceSession,
    TypeInfoValue,
    DimensionValueType,
)

# ORT's TensorDataType enum matches ONNX's TensorProto.DataType for every type used here.
NP_OF = {
    TensorProto.FLOAT: np.float32, TensorProto.UINT8: np.uint8, TensorProto.INT8: np.int8,
    TensorProto.UINT16: np.uint16, TensorProto.INT16: np.int16, TensorProto.INT32: np.int32,
    TensorProto.INT64: np.int64, TensorProto.BOOL: np.bool_, TensorProto.FLOAT16: np.float16,
    TensorProto.DOUBLE: np.float64, TensorProto.UINT32: np.uint32, TensorProto.UINT64: np.uint64,
}


def s(b):
    return b.decode() if b is not None else ''


def tensor_of(t):
    dtype = t.DataType()
    if dtype not in NP_OF:
        raise SystemExit(f'initializer {s(t.Name())}: unsupported data type {dtype}')
    dims = [t.Dims(i) for i in range(t.DimsLength())]
    raw = t.RawDataAsNumpy() if t.RawDataLength() else np.zeros(0, np.uint8)
    arr = np.frombuffer(raw.tobytes(), dtype=NP_OF[dtype]).reshape(dims)
    return arr


def value_info(arg):
    name = s(arg.Name())
    ti = arg.Type()
    if ti is None or ti.ValueType() != TypeInfoValue.TypeInfoValue.tensor_type:
        return helper.make_empty_tensor_value_info(name)
    from onnxruntime.tools.ort_format_model.ort_flatbuffers_py.fbs.TensorTypeAndShape import TensorTypeAndShape
    tt = TensorTypeAndShape()
    tbl = ti.Value()
    tt.Init(tbl.Bytes, tbl.Pos)
    shape = None
    sh = tt.Shape()
    if sh is not None:
        shape = []
        for i in range(sh.DimLength()):
            v = sh.Dim(i).Value()
            if v is None or v.DimType() == DimensionValueType.DimensionValueType.UNKNOWN:
                shape.append(None)
            elif v.DimType() == DimensionValueType.DimensionValueType.VALUE:
                shape.append(v.DimValue())
            else:
                shape.append(s(v.DimParam()))
    return helper.make_tensor_value_info(name, tt.ElemType(), shape)


def attribute(a, read_graph):
    name, t = s(a.Name()), a.Type()
    A = AttributeType.AttributeType
    if t == A.FLOAT:
        return helper.make_attribute(name, a.F())
    if t == A.INT:
        return helper.make_attribute(name, a.I())
    if t == A.STRING:
        return helper.make_attribute(name, a.S())
    if t == A.TENSOR:
        return helper.make_attribute(name, numpy_helper.from_array(tensor_of(a.T()), s(a.T().Name())))
    if t == A.GRAPH:
        return _GraphAttr(name, read_graph(a.G(), name))
    if t == A.FLOATS:
        return helper.make_attribute(name, [a.Floats(i) for i in range(a.FloatsLength())], attr_type=onnx.AttributeProto.FLOATS)
    if t == A.INTS:
        return helper.make_attribute(name, [a.Ints(i) for i in range(a.IntsLength())], attr_type=onnx.AttributeProto.INTS)
    if t == A.STRINGS:
        return helper.make_attribute(name, [a.Strings(i) for i in range(a.StringsLength())], attr_type=onnx.AttributeProto.STRINGS)
    raise SystemExit(f'attribute {name}: unsupported type {t}')


class Graph:
    """A graph read from the flatbuffer: nodes (in file order), constants, inputs, outputs."""

    def __init__(self, g, name):
        self.name = name
        args = {s(g.NodeArgs(i).Name()): g.NodeArgs(i) for i in range(g.NodeArgsLength())}
        self.inputs = [s(g.Inputs(i)) for i in range(g.InputsLength())]
        self.outputs = [s(g.Outputs(i)) for i in range(g.OutputsLength())]
        self.consts = {}
        for i in range(g.InitializersLength()):
            t = g.Initializers(i)
            self.consts[s(t.Name())] = tensor_of(t)
        if g.SparseInitializersLength():
            raise SystemExit(f'graph {name}: sparse initializers are not supported')
        self.inputs = [n for n in self.inputs if n not in self.consts]
        self.input_info = [value_info(args[n]) for n in self.inputs]
        self.output_info = [value_info(args[n]) for n in self.outputs]
        self.nodes = []
        for i in range(g.NodesLength()):
            n = g.Nodes(i)
            if n.Type() != 0:
                raise SystemExit(f'graph {name}: fused node {s(n.Name())} is not supported')
            attrs = [attribute(n.Attributes(j), lambda sub, an: Graph(sub, f'{name}/{s(n.Name())}/{an}')) for j in range(n.AttributesLength())]
            self.nodes.append({
                'op': s(n.OpType()), 'domain': s(n.Domain()), 'name': s(n.Name()),
                'inputs': [s(n.Inputs(j)) for j in range(n.InputsLength())],
                'outputs': [s(n.Outputs(j)) for j in range(n.OutputsLength())],
                'attrs': attrs,
            })


def topo(nodes, known):
    """Nodes in dependency order (the file's order where it allows)."""
    produced = {o: i for i, n in enumerate(nodes) for o in n['outputs'] if o}
    done, order, seen = set(), [], set()

    def visit(i):
        if i in done:
            return
        if i in seen:
            raise SystemExit('the graph has a cycle')
        seen.add(i)
        for x in nodes[i]['inputs'] + implicit(nodes[i]):
            if x and x not in known and x in produced:
                visit(produced[x])
        done.add(i)
        order.append(nodes[i])

    for i in range(len(nodes)):
        visit(i)
    return order


def implicit(node):
    """Names a node's subgraphs read from outside themselves."""
    out = []
    for a in node['attrs']:
        if a.type == onnx.AttributeProto.GRAPH:
            sub = a.g
            local = {i.name for i in sub.input} | {t.name for t in sub.initializer}
            for n in sub.node:
                local |= set(n.output)
            for n in sub.node:
                out += [x for x in n.input if x and x not in local]
                for aa in n.attribute:
                    if aa.type == onnx.AttributeProto.GRAPH:
                        out += [x for x in implicit({'attrs': [aa]}) if x not in local]
    return out


def evaluate(node, values, opsets):
    model = helper.make_model(
        helper.make_graph(
            [helper.make_node(node['op'], node['inputs'], node['outputs'], domain=node['domain'] or None)],
            'one', [helper.make_tensor_value_info(x, TensorProto.UNDEFINED, None) for x in dict.fromkeys(x for x in node['inputs'] if x)],
            [helper.make_tensor_value_info(x, TensorProto.UNDEFINED, None) for x in node['outputs']],
        ),
        opset_imports=opsets,
    )
    model.graph.node[0].attribute.extend(node['attrs'])
    ref = ReferenceEvaluator(model)
    feeds = {x: values[x] for x in dict.fromkeys(x for x in node['inputs'] if x)}
    return ref.run(None, feeds)


class Folder:
    def __init__(self, opsets):
        self.opsets = opsets
        self.hoisted = {}  # key of a computation on outer constants -> its outer name
        self.outer = {}    # outer constants added from subgraphs
        self.folded = 0

    def fold(self, g, outer_consts, depth=0):
        """Returns (nodes, constants) of g with every all-constant node evaluated."""
        consts = dict(g.consts)
        visible = {**outer_consts, **consts}
        kept = []
        for node in topo(g.nodes, set(g.inputs) | set(visible)):
            has_graph = any(a.type == onnx.AttributeProto.GRAPH for a in node['attrs'])
            ins = [x for x in node['inputs'] if x]
            if not has_graph and ins and all(x in visible for x in ins):
                outs = evaluate(node, visible, self.opsets)
                self.folded += 1
                for name, v in zip(node['outputs'], outs):
                    v = np.asarray(v)
                    reads_outer_only = all(x in outer_consts and x not in consts for x in ins)
                    if depth > 0 and reads_outer_only:
                        # The same computation in another branch reuses this one constant.
                        key = (node['op'], node['domain'], tuple(node['inputs']), tuple(a.SerializeToString() for a in node['attrs']), node['outputs'].index(name))
                        if key not in self.hoisted:
                            hname = f'hoisted_{len(self.hoisted)}_{name}'
                            self.hoisted[key] = hname
                            self.outer[hname] = v
                        kept.append({'op': 'Identity', 'domain': '', 'name': f'{name}_hoisted', 'inputs': [self.hoisted[key]], 'outputs': [name], 'attrs': []})
                        visible[name] = v  # still constant for the nodes after it
                    else:
                        consts[name] = v
                        visible[name] = v
                continue
            if has_graph:
                attrs = []
                for a in node['attrs']:
                    if a.type == onnx.AttributeProto.GRAPH:
                        attrs.append(helper.make_attribute(a.name, self.to_proto(a.g_src, visible, depth + 1)))
                    else:
                        attrs.append(a)
                node = {**node, 'attrs': attrs}
            kept.append(node)
        # Identity nodes reading hoisted constants: rewrite their readers to the outer name directly.
        alias = {n['outputs'][0]: n['inputs'][0] for n in kept if n['op'] == 'Identity' and n['inputs'][0] in self.outer}
        outputs_needed = set(g.outputs)
        kept2 = []
        for n in kept:
            if n['op'] == 'Identity' and n['outputs'][0] in alias and n['outputs'][0] not in outputs_needed:
                continue
            kept2.append({**n, 'inputs': [alias.get(x, x) for x in n['inputs']]})
        return kept2, consts

    def to_proto(self, g, outer_consts, depth=0):
        nodes, consts = self.fold(g, outer_consts, depth)
        used = set(g.outputs)
        for n in nodes:
            used |= set(n['inputs'])
            for a in n['attrs']:
                if a.type == onnx.AttributeProto.GRAPH:
                    used |= set(implicit({'attrs': [a]}))
        protos = []
        for n in nodes:
            p = helper.make_node(n['op'], n['inputs'], n['outputs'], name=n['name'], domain=n['domain'] or None)
            p.attribute.extend(n['attrs'])
            protos.append(p)
        inits = [numpy_helper.from_array(np.asarray(v, order='C'), k) for k, v in consts.items() if k in used]
        return helper.make_graph(protos, g.name.replace('/', '_') or 'main', g.input_info, g.output_info, inits)


def convert(src, dst):
    buf = open(src, 'rb').read()
    sess = InferenceSession.InferenceSession.GetRootAsInferenceSession(buf, 0)
    m = sess.Model()
    opsets = [helper.make_opsetid(s(m.OpsetImport(i).Domain()), m.OpsetImport(i).Version()) for i in range(m.OpsetImportLength())]
    main = Graph(m.Graph(), 'main')
    folder = Folder(opsets)
    graph = folder.to_proto(main, {}, 0)
    for k, v in folder.outer.items():
        graph.initializer.append(numpy_helper.from_array(np.asarray(v, order='C'), k))
    if 'encoder_hidden_states' in main.inputs:
        add_cross_attention_bias(graph)
    model = helper.make_model(graph, opset_imports=[o for o in opsets if o.domain in ('', 'com.microsoft')], ir_version=m.IrVersion(),
                              producer_name='voxdex fold-moonshine.py')
    onnx.checker.check_model(model, full_check=False)
    tmp = dst + '.tmp'
    onnx.save_model(model, tmp)
    os.replace(tmp, dst)
    return len(main.nodes), len(graph.node), folder.folded


BIAS = 'encoder_attention_bias'


def add_cross_attention_bias(graph):
    """Gives the decoder an input added to its cross-attention scores before their softmax.

    The model has no attention mask, so utterances of different lengths cannot share a batch as they
    are. With this input ([batch, 1, 1, encoder frames], float32) a batch pads every utterance's
    encoder output to the longest one and puts a large negative number on the padded frames: their
    softmax weight is exactly 0, and each row computes what it computes alone. Zeros change nothing
    (x + 0 = x), so a single utterance gives the same values as the graph without the input.
    """
    graph.input.append(helper.make_tensor_value_info(BIAS, TensorProto.FLOAT, ['batch_size', 1, 1, 'encoder_sequence_length_out']))
    added = 0

    def patch(g):
        nonlocal added
        nodes = list(g.node)
        out = []
        for n in nodes:
            for a in n.attribute:
                if a.type == onnx.AttributeProto.GRAPH:
                    patch(a.g)
            if n.op_type == 'Softmax' and '/encoder_attn/' in n.name:
                biased = n.input[0] + '_biased'
                out.append(helper.make_node('Add', [n.input[0], BIAS], [biased], name=n.name.replace('/Softmax', '/AddBias')))
                n.input[0] = biased
                added += 1
            out.append(n)
        del g.node[:]
        g.node.extend(out)

    patch(graph)
    if added != 16:  # 8 layers, in each branch of the If
        raise SystemExit(f'expected 16 cross-attention softmaxes in the decoder, found {added}')


class _GraphAttr:
    """A subgraph attribute before folding: behaves like an AttributeProto of type GRAPH."""
    type = onnx.AttributeProto.GRAPH

    def __init__(self, name, g):
        self.name = name
        self.g_src = g
        self.g = _Summary(g)

    def SerializeToString(self):
        return self.name.encode()


class _Summary:
    """What implicit() needs of a subgraph not yet folded: its nodes, inputs and initializers."""

    def __init__(self, g):
        self.input = [type('I', (), {'name': n})() for n in g.inputs]
        self.initializer = [type('I', (), {'name': n})() for n in g.consts]
        self.node = [type('N', (), {'input': n['inputs'], 'output': n['outputs'], 'attribute': n['attrs']})() for n in g.nodes]


def main():
    if len(sys.argv) != 3:
        raise SystemExit('usage: fold-moonshine.py SRC_DIR OUT_DIR')
    src, out = sys.argv[1:]
    os.makedirs(out, exist_ok=True)
    for name in ('encoder_model', 'decoder_model_merged'):
        before, after, folded = convert(os.path.join(src, name + '.ort'), os.path.join(out, name + '.onnx'))
        sha = hashlib.sha256(open(os.path.join(out, name + '.onnx'), 'rb').read()).hexdigest()
        print(f'{name}: {before} -> {after} outer nodes ({folded} evaluated), sha256 {sha}')


if __name__ == '__main__':
    main()
