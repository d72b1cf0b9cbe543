/**
 * Custom vocabulary (src/asr/moonshine/vocab.ts) on the real Moonshine tokenizer: the phrase trie,
 * the boosts, taking a phrase back, the spellings; and through the engine on synthesized speech.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { placeWords } from '../src/asr/align.js';
import { loadModelRegistry } from '../src/asr/models.js';
import { createTranscriber } from '../src/asr/transcriber.js';
import { loadTokenizer } from '../src/asr/moonshine/tokenizer.js';
import { compileVocabulary, nearMisses, soundKey, vocabularySpellings } from '../src/asr/moonshine/vocab.js';
import { rewriteNearMisses } from '../src/asr/moonshine/near-miss.js';
import { readingsOf } from '../src/asr/moonshine/words.js';
import { loadConfig } from '../src/config.js';
import { silentLogger } from '../src/log.js';
import { decodeWav } from '../src/stages/decode.js';

const v = suite('asr custom vocabulary');
const config = loadConfig({});
const registry = loadModelRegistry(config.modelsFile);
const tokenizer = loadTokenizer(path.join(registry.resolve('en-us-moonshine', 16000).dir, 'tokenizer.bin'));
const idOf = (text: string) => {
  for (let id = 259; id < tokenizer.size; id++) if (Buffer.from(tokenizer.piece(id)).toString('utf8') === text) return id;
  throw new Error(`no piece ${text}`);
};

v('a phrase is reachable through every tokenisation, case-insensitively, from a word start only', () => {
  const vocab = compileVocabulary(['Lumora Cloud'], tokenizer);
  assert.equal(vocab.phrases, [['Lumora', 'Cloud']]);
  assert.is(vocab.lengths[0], '▁lumora▁cloud'.length);
  const starts = vocab.starts.map(([id]) => Buffer.from(tokenizer.piece(id)).toString('utf8').toLowerCase());
  assert.ok(starts.includes('▁l') && starts.includes('▁lum'), starts.join(' '));
  assert.ok(starts.every((s) => s.startsWith('▁') && '▁lumora▁cloud'.startsWith(s)));
  // "▁Cloud" continues the phrase after "▁lumora".
  assert.ok(vocab.next[0]![7]!.has(idOf('▁Cloud')));
});

v('a phrase is spelled only with pieces in a natural case: as spelled, lower case, or capitalised at a word start', () => {
  const vocab = compileVocabulary(['Zentrix'], tokenizer);
  const text = (id: number) => Buffer.from(tokenizer.piece(id)).toString('utf8');
  const pieces = vocab.next[0]!.flatMap((m) => [...m.keys()].map(text));
  assert.ok(pieces.includes('▁Z') && pieces.includes('en'), pieces.join(' '));
  for (const p of pieces) assert.ok(p === p.toLowerCase() || /^▁\p{Lu}[^\p{Lu}]*$/u.test(p) || 'Zentrix'.includes(p.replace('▁', '')), p);
  assert.not.ok(vocab.starts.some(([id]) => text(id) === '▁'), 'a bare word start is not a phrase start');
});

v('near misses that are not English words become the phrase; English words and numbers never do', () => {
  const vocab = compileVocabulary(['Lumora Cloud', 'Omnivox', 'Blumetric', 'Velloria', 'Zed'], tokenizer);
  const english = new Set(['our', 'files', 'are', 'in', 'cloud', 'now', 'the', 'blue', 'metric', 'valerie', 'my', 'account', 'zed', 'said']);
  const isWord = (w: string) => english.has(w);
  assert.equal(nearMisses(['our', 'files', 'are', 'in', 'lumore', 'cloud', 'now.'], vocab, isWord), [{ at: 4, length: 2, phrase: 0 }]);
  assert.equal(nearMisses(['the', 'omnivoc', 'subscription'], vocab, isWord), [{ at: 1, length: 1, phrase: 1 }]);
  assert.equal(nearMisses(['the', 'blue', 'metric', 'invoice'], vocab, isWord), [], 'English words stay');
  assert.equal(nearMisses(['my', 'valerie', 'account'], vocab, isWord), [], 'a real name stays');
  assert.equal(nearMisses(['omnivox5'], vocab, isWord), [], 'numbers stay');
  assert.equal(nearMisses(['zet', 'said'], vocab, isWord), [], 'short phrases are matched exactly only');
  assert.is(soundKey('Draccium'), 'drakium');
  assert.is(soundKey('Draxium'), 'draksium');
});

v('a rewritten near miss keeps its punctuation and takes the lowest confidence', () => {
  const vocab = compileVocabulary(['Lumora Cloud'], tokenizer);
  const w = (text: string, display: string, confidence: number) => ({ text, readings: readingsOf(text), confidence, display });
  const out = rewriteNearMisses([w('in', 'in', 0.9), w('lumore', 'Lumore', 0.4), w('cloud', 'Cloud.', 0.8)], vocab, new Set(['in', 'cloud']));
  assert.equal(out.map((x) => [x.text, x.display, x.confidence]), [['in', 'in', 0.9], ['lumora', 'Lumora', 0.4], ['cloud', 'Cloud.', 0.4]]);
});

v('words that spell a phrase are written as the vocabulary spells them', () => {
  const vocab = compileVocabulary(['Lumora Cloud', 'Zentrix'], tokenizer);
  assert.equal(vocabularySpellings(['in', 'lumora', 'cloud.', 'zentrix', 'cloud'], vocab), [undefined, 'Lumora', 'Cloud', 'Zentrix', undefined]);
  const written = [{ text: 'zentrix', readings: readingsOf('zentrix'), confidence: 0.9, spelled: 'Zentrix' }];
  const placed = placeWords(written, [{ word: '@z', start: 100, end: 150, confidence: 1 }, { word: '@eh', start: 150, end: 400, confidence: 1 }], [0, 500]);
  assert.equal(placed.words.map((w) => w.word), ['Zentrix']);
});

v('through the engine: a synthesized product name is written as the vocabulary spells it, and only with it', async () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'voxdex-vocab-'));
  try {
    const wav = path.join(dir, 'q.wav');
    execFileSync('flite', ['-t', 'Please cancel the Omnivox subscription for my husband.', '-o', path.join(dir, 'raw.wav')]);
    execFileSync('sox', ['-V1', path.join(dir, 'raw.wav'), '-r', '16000', '-e', 'signed', '-b', '16', '-c', '1', wav]);
    const audio = await decodeWav(wav);
    const t = createTranscriber({ config: { ...config, asrThreads: 1 }, log: silentLogger, registry });
    try {
      const words = async (vocab?: string[]) => (await t.transcribe(audio, { source: 'q.wav', vocab })).utterances.flatMap((u) => u.events.map((e) => e.word));
      const without = await words();
      const withVocab = await words(['Omnivox', 'Zentrix']);
      assert.not.ok(without.includes('Omnivox'), without.join(' '));
      assert.ok(withVocab.includes('Omnivox'), withVocab.join(' '));
      assert.not.ok(withVocab.includes('Zentrix'));
      assert.equal(withVocab.filter((w) => w !== 'Omnivox').slice(0, 2), ['please', 'cancel']);
    } finally {
      await t.close();
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

v.run();
