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
import { advance, compileVocabulary, CONTINUE_BOOST, phraseBoosts, START_BOOST, vocabularySpellings } from '../src/asr/moonshine/vocab.js';
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

v('pieces under way get the larger boost; a start needs some probability from the model', () => {
  const vocab = compileVocabulary(['Zentrix'], tokenizer);
  const logits = new Float32Array(tokenizer.size).fill(-50);
  const z = idOf('▁Z');
  logits[z] = -1; // likely enough to start
  const lse = Math.log(Array.from(logits).reduce((s, x) => s + Math.exp(x), 0));
  const b = phraseBoosts(vocab, [], new Set(), logits, 0, lse);
  assert.is(b.get(z), START_BOOST);
  const unlikely = vocab.starts.find(([id]) => id !== z)![0];
  assert.is(b.get(unlikely) ?? 0, 0, 'an unlikely start is not boosted');
  const m = advance(vocab, [], new Set(), z, 3, true);
  assert.equal(m.active.map((x) => [x.phrase, x.offset, x.from, x.boosted]), [[0, 2, 3, true]]);
  const b2 = phraseBoosts(vocab, m.active, new Set(), logits, 0, lse);
  assert.is(b2.get(idOf('en')), CONTINUE_BOOST);
});

v('a phrase that is left, or goes on past its end, is broken; a word boundary completes it', () => {
  const vocab = compileVocabulary(['Zen'], tokenizer);
  const started = advance(vocab, [], new Set(), idOf('▁Z'), 0, true).active;
  const left = advance(vocab, started, new Set(), idOf('▁the'), 1, false);
  assert.is(left.broken.length, 1);
  const spelled = advance(vocab, started, new Set(), idOf('en'), 1, false).active;
  assert.is(advance(vocab, spelled, new Set(), idOf('ith'), 2, false).broken.length, 1, '"Zenith" is not "Zen"');
  assert.is(advance(vocab, spelled, new Set(), idOf('▁plan'), 2, false).completed.length, 1);
  assert.is(advance(vocab, [], new Set([0]), idOf('▁Z'), 0, true).active.length, 0, 'a barred phrase does not start');
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
