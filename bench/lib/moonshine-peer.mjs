// The peer for bench/asr-throughput.ts: Moonshine run directly by a minimal ONNX Runtime script (no
// voxdex code). Whole files, greedy decoding with the key/value cache, as the model's reference does.
//   node bench/lib/moonshine-peer.mjs MODEL_DIR FILE.raw...   (16 kHz s16le) -> JSON { hyps, cpu, wall }
import { readFileSync } from 'node:fs';
import path from 'node:path';
import ort from 'onnxruntime-node';

const [dir, ...files] = process.argv.slice(2);
const opts = { intraOpNumThreads: 1, interOpNumThreads: 1, executionMode: 'sequential', enableCpuMemArena: true, graphOptimizationLevel: 'all' };
const encoder = await ort.InferenceSession.create(path.join(dir, 'encoder_model.ort'), opts);
const decoder = await ort.InferenceSession.create(path.join(dir, 'decoder_model_merged.ort'), opts);
const tok = readFileSync(path.join(dir, 'tokenizer.bin'));
const pieces = [];
for (let i = 0; i < tok.length; ) {
  let n = tok[i++];
  if (n & 0x80) n = (n & 0x7f) + tok[i++] * 128;
  pieces.push(tok.subarray(i, i + n));
  i += n;
}
const names = [];
for (let l = 0; l < 8; l++) for (const a of ['decoder', 'encoder']) for (const b of ['key', 'value']) names.push(`${l}.${a}.${b}`);

async function transcribe(pcm) {
  const hidden = (await encoder.run({ input_values: new ort.Tensor('float32', pcm, [1, pcm.length]) })).last_hidden_state;
  const feeds = { encoder_hidden_states: hidden };
  for (const n of names) feeds[`past_key_values.${n}`] = new ort.Tensor('float32', new Float32Array(0), [1, 8, 0, 52]);
  const ids = [];
  let last = 1;
  const max = Math.ceil((pcm.length / 16000) * 6);
  for (let step = 0; step < max; step++) {
    feeds.input_ids = new ort.Tensor('int64', BigInt64Array.of(BigInt(last)), [1, 1]);
    feeds.use_cache_branch = new ort.Tensor('bool', Uint8Array.of(step > 0 ? 1 : 0), [1]);
    const out = await decoder.run(feeds);
    const logits = out.logits.data;
    const size = out.logits.dims[2];
    let best = 0;
    for (let i = 1, o = logits.length - size; i < size; i++) if (logits[o + i] > logits[o + best]) best = i;
    for (const n of names) if (step === 0 || n.includes('decoder')) feeds[`past_key_values.${n}`] = out[`present.${n}`];
    if (best === 2) break;
    ids.push(best);
    last = best;
  }
  const bytes = Buffer.concat(ids.filter((i) => i > 2).map((i) => pieces[i]));
  return bytes.toString('utf8').replace(/\u2581/g, ' ').trim();
}

const hyps = {};
const c0 = process.cpuUsage();
const t0 = performance.now();
for (const f of files) {
  const b = readFileSync(f);
  const s16 = new Int16Array(b.buffer, b.byteOffset, b.length / 2);
  hyps[path.basename(f, '.raw')] = await transcribe(Float32Array.from(s16, (v) => v / 32768));
}
const c = process.cpuUsage(c0);
process.stdout.write(JSON.stringify({ hyps, cpu: (c.user + c.system) / 1e6, wall: (performance.now() - t0) / 1000 }));
