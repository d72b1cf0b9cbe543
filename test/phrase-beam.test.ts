/**
 * The beam over phrase starts (src/asr/moonshine/phrase-beam.ts) on a toy model: a fixed table of
 * next-token probabilities by history stands for the decoder, so each decision can be traced.
 */
import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { decodeWithPhrases, MAX_BRANCHES, PHRASE_BONUS, type Stepper } from '../src/asr/moonshine/phrase-beam.js';
import { trailingRepeat } from '../src/asr/moonshine/model.js';
import { BOS, EOS } from '../src/asr/moonshine/tokenizer.js';
import type { Vocabulary } from '../src/asr/moonshine/vocab.js';

const b = suite('phrase beam');

// Toy pieces: 3 ▁the, 4 ▁st, 5 ▁par, 6 ekh, 7 ▁Syn, 8 tara, 9 ▁app, 10 ▁crashes
const TEXT = ['<unk>', '<s>', '</s>', '▁the', '▁st', '▁par', 'ekh', '▁Syn', 'tara', '▁app', '▁crashes'];
const SIZE = TEXT.length;

/** "Syntara" (key ▁syntara, 8 characters): starts with ▁Syn (offset 4), continues with tara. */
const VOCAB: Vocabulary = {
  phrases: [['Syntara']],
  starts: [[7, 0, 4]],
  next: [[new Map([[7, 4]]), new Map(), new Map(), new Map(), new Map([[8, 8]]), new Map(), new Map(), new Map()]],
  lengths: [8],
  boundary: (id) => id === EOS || TEXT[id]!.startsWith('▁'),
};

type State = number[];

/** A model whose next-token probabilities depend on the history (ids after BOS). */
function toyModel(table: (history: string) => Partial<Record<number, number>>): Stepper<State> & { steps: number } {
  const m = {
    steps: 0,
    async step(state: State, token: number) {
      m.steps++;
      const history = token === BOS ? [] : [...state, token];
      const p = table(history.map((id) => TEXT[id]).join(' '));
      const logits = new Float32Array(SIZE).fill(Math.log(1e-9));
      for (const [id, prob] of Object.entries(p)) logits[Number(id)] = Math.log(prob!);
      return { logits, state: history };
    },
  };
  return m;
}

const decode = (model: Stepper<State>) => decodeWithPhrases(model, [], { vocabulary: VOCAB, maxTokens: 20, repeats: trailingRepeat });
const words = (ids: Array<{ id: number }>) => ids.map((t) => TEXT[t.id]).join(' ');

b('a listed name the greedy path misses wins when, once started, the audio carries it', async () => {
  // Said: "the Syntara app crashes". Greedy hears "the st par ekh app crashes" (1.7 nats over the
  // name's audio); "▁Syn" costs 3 nats, and the model is sure of the rest once it is started.
  const model = toyModel((h) => {
    if (h === '') return { 3: 0.9 };
    if (h === '▁the') return { 4: 0.6, 7: 0.05, 5: 0.1 };
    if (h === '▁the ▁st') return { 5: 0.5 };
    if (h === '▁the ▁st ▁par') return { 6: 0.6 };
    if (h === '▁the ▁st ▁par ekh') return { 9: 0.8 };
    if (h === '▁the ▁Syn') return { 8: 0.9 };
    if (h === '▁the ▁Syn tara') return { 9: 0.9 };
    if (h.endsWith('▁app')) return { 10: 0.9 };
    if (h.endsWith('▁crashes')) return { [EOS]: 0.9 };
    return { [EOS]: 0.5 };
  });
  const r = await decode(model);
  assert.is(words(r.tokens), '▁the ▁Syn tara ▁app ▁crashes');
  assert.equal([r.ended, r.branches, r.accepted], [true, 1, 1]);
});

b('a name where something else was said loses: the model does not find its rest in the audio', async () => {
  // Said: "the st par ekh app". The name may start (p 1e-3) but its continuation is unlikely.
  const model = toyModel((h) => {
    if (h === '') return { 3: 0.9 };
    if (h === '▁the') return { 4: 0.6, 7: 0.001 };
    if (h === '▁the ▁st') return { 5: 0.5 };
    if (h === '▁the ▁st ▁par') return { 6: 0.6 };
    if (h === '▁the ▁st ▁par ekh') return { 9: 0.8 };
    if (h === '▁the ▁Syn') return { 8: 0.0005, 5: 0.5 };
    if (h === '▁the ▁Syn tara') return { 5: 0.3, 9: 0.01 };
    if (h.endsWith('▁app')) return { [EOS]: 0.9 };
    return { 6: 0.3, 9: 0.3 };
  });
  const r = await decode(model);
  assert.is(words(r.tokens), '▁the ▁st ▁par ekh ▁app');
  assert.equal([r.branches, r.accepted], [1, 0]);
});

b('the phrase bonus decides close calls, and only those', async () => {
  // The name path costs exactly 3 nats more than the greedy path over the same audio: within the bonus.
  const near = Math.exp(-3);
  const model = toyModel((h) => {
    if (h === '') return { 4: 0.5, 7: 0.5 * near };
    if (h === '▁st') return { 9: 0.5 };
    if (h === '▁Syn') return { 8: 1 - 1e-6 };
    if (h === '▁Syn tara') return { 9: 0.5 };
    if (h.endsWith('▁app')) return { [EOS]: 0.9 };
    return { [EOS]: 0.9 };
  });
  assert.ok(PHRASE_BONUS > 3);
  assert.is(words((await decode(model)).tokens), '▁Syn tara ▁app');
});

b('a greedy path that writes the phrase itself needs no branch to win', async () => {
  const model = toyModel((h) => {
    if (h === '') return { 7: 0.9 };
    if (h === '▁Syn') return { 8: 0.9 };
    if (h === '▁Syn tara') return { 9: 0.9 };
    return { [EOS]: 0.9 };
  });
  const r = await decode(model);
  assert.is(words(r.tokens), '▁Syn tara ▁app');
  assert.is(r.accepted, 0);
});

b('branches per utterance are bounded: a start possible at every word costs at most MAX_BRANCHES branches', async () => {
  const model = toyModel((h) => {
    const n = h.split(' ').filter(Boolean).length;
    if (n >= 40) return { [EOS]: 0.9 };
    if (h.endsWith('▁Syn')) return { 5: 0.9 }; // never "tara": every branch dies on its second piece
    return { 3: 0.5, 7: 0.01 };
  });
  const r = await decodeWithPhrases(model, [], { vocabulary: VOCAB, maxTokens: 60, repeats: () => 0 });
  assert.is(r.tokens.length, 40);
  assert.is(r.branches, MAX_BRANCHES);
  assert.ok(model.steps <= 41 + 2 * MAX_BRANCHES, String(model.steps));
});

b.run();
