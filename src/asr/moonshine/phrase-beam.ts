/**
 * Decoding with a custom vocabulary: greedy decoding plus a small beam over phrase starts.
 *
 * The main hypothesis is decoded greedily, as without a vocabulary. Wherever a listed phrase may
 * start — the model gives one of its first pieces at least startMinLogprob there — a branch is
 * opened that writes the phrase (the likeliest of its tokenisations, piece by piece, then a word
 * boundary) and goes on greedily. Branch and main then run side by side until they agree again: both
 * have written the same two tokens after the phrase (or both have ended). Their scores over the same
 * audio — each the sum of the model's own log probabilities, never boosted — are then compared, the
 * branch getting a bonus (BEAM_TUNING.phraseBonus) for being a listed phrase; the better one goes on as the main
 * hypothesis. A name said aloud wins because the model, once forced to start it, finds the rest in
 * the audio; a name where something else was said loses, because its pieces and the words after it
 * cost the model far more than the bonus.
 *
 * At most maxLive branches at once and maxBranches per utterance bound the cost; a branch whose
 * forced piece the model gives less than pieceMinLogprob is dropped at once.
 */
import { BOS, EOS } from './tokenizer.js';
import type { Vocabulary } from './vocab.js';

export interface BeamTuning {
  /** A branch may start where the model gives a phrase's first piece at least this log probability. */
  startMinLogprob: number;
  /** A forced piece less likely than this ends its branch (the audio says something else). */
  pieceMinLogprob: number;
  /** Log-probability credit of a hypothesis for writing a listed phrase. */
  phraseBonus: number;
  /** Branches alive at once, opened at one position (the likeliest starts), and opened per utterance. */
  maxLive: number;
  perPosition: number;
  maxBranches: number;
}

export const BEAM_TUNING: Readonly<BeamTuning> = Object.freeze({
  startMinLogprob: Math.log(1e-5),
  pieceMinLogprob: Math.log(1e-3),
  phraseBonus: 6,
  maxLive: 4,
  perPosition: 2,
  maxBranches: 24,
});
export const PHRASE_BONUS = BEAM_TUNING.phraseBonus;
export const MAX_BRANCHES = BEAM_TUNING.maxBranches;
/** Tokens both hypotheses must have written alike after the phrase for them to be compared. */
const SYNC_TOKENS = 2;

export interface BeamToken {
  id: number;
  logprob: number;
}

/** One decoder step of one hypothesis: its logits for the next token, and the state after it. */
export interface Stepper<S> {
  step(state: S, token: number): Promise<{ logits: Float32Array; state: S }>;
}

export interface BeamOptions {
  vocabulary: Vocabulary;
  maxTokens: number;
  forcePastEos?: boolean;
  /** Throws when decoding must stop (CANCELLED). */
  checkAbort?: () => void;
  /** Whether the last tokens are a decoding loop: the pattern's length, or 0 (model.ts trailingRepeat). */
  repeats: (ids: readonly number[]) => number;
  /** Other values than BEAM_TUNING (bench/vocabulary.ts tunes them). */
  tuning?: Partial<BeamTuning>;
}

export interface BeamResult {
  tokens: BeamToken[];
  ended: boolean;
  repetition: boolean;
  firstEosLogprob: number;
  /** The first token was end-of-sequence and `forcePastEos` took the best other one. */
  forced: boolean;
  /** Branches opened, and how many replaced the main hypothesis. */
  branches: number;
  accepted: number;
}

interface Hyp<S> {
  tokens: BeamToken[];
  /** prefix[i]: sum of the first i tokens' log probabilities. */
  prefix: number[];
  state: S;
  last: number;
  ended: boolean;
  repetition: boolean;
  done: boolean;
  /** Branches only: the phrase, how far it is spelled, where it began, and where it was completed. */
  phrase?: { index: number; offset: number; from: number; completedAt?: number };
}

function logSoftmaxDenominator(logits: Float32Array): number {
  let max = -Infinity;
  for (let i = 0; i < logits.length; i++) if (logits[i]! > max) max = logits[i]!;
  let sum = 0;
  for (let i = 0; i < logits.length; i++) sum += Math.exp(logits[i]! - max);
  return max + Math.log(sum);
}

function argmax(logits: Float32Array, allow?: (id: number) => boolean, exclude = -1): number {
  let best = -1;
  for (let i = 0; i < logits.length; i++) if (i !== exclude && (!allow || allow(i)) && (best < 0 || logits[i]! > logits[best]!)) best = i;
  return best;
}

const score = (h: Hyp<unknown>) => h.prefix[h.prefix.length - 1]!;

/** Index j (≥ from) such that a's tokens [j - n, j) equal the last n tokens of b, or -1. */
function syncPoint(a: readonly BeamToken[], b: readonly BeamToken[], from: number, n = SYNC_TOKENS): number {
  if (b.length < n) return -1;
  for (let j = Math.max(from + n, n); j <= a.length; j++) {
    let same = true;
    for (let k = 1; k <= n && same; k++) same = a[j - k]!.id === b[b.length - k]!.id;
    if (same) return j;
  }
  return -1;
}

export async function decodeWithPhrases<S>(stepper: Stepper<S>, start: S, o: BeamOptions): Promise<BeamResult> {
  const vocab = o.vocabulary;
  const { startMinLogprob, pieceMinLogprob, phraseBonus, maxLive, perPosition, maxBranches } = { ...BEAM_TUNING, ...o.tuning };
  let main: Hyp<S> = { tokens: [], prefix: [0], state: start, last: BOS, ended: false, repetition: false, done: false };
  let branches: Array<Hyp<S>> = [];
  let opened = 0;
  let accepted = 0;
  let firstEosLogprob = 0;
  let forced = false;

  const write = (h: Hyp<S>, id: number, logprob: number, step: number) => {
    if (id === EOS) {
      h.ended = h.done = true;
      h.prefix.push(score(h) + logprob);
      return;
    }
    if (step >= o.maxTokens) {
      h.done = true;
      return;
    }
    h.tokens.push({ id, logprob });
    h.prefix.push(score(h) + logprob);
    h.last = id;
    const rep = o.repeats(h.tokens.map((t) => t.id));
    if (rep > 0) {
      h.tokens.length -= rep * 3;
      h.prefix.length = h.tokens.length + 1;
      h.repetition = h.done = true;
    }
  };

  for (let step = 0; !main.done || branches.some((b) => !b.done); step++) {
    o.checkAbort?.();
    // Main: the greedy choice, and branches for the phrases that may start here.
    if (!main.done) {
      const { logits, state } = await stepper.step(main.state, main.last);
      const lse = logSoftmaxDenominator(logits);
      let id = argmax(logits);
      if (step === 0) {
        firstEosLogprob = logits[EOS]! - lse;
        if (id === EOS && o.forcePastEos) {
          id = argmax(logits, undefined, EOS);
          forced = true;
        }
      }
      for (const b of openBranches(main, state, logits, lse)) branches.push(b);
      main.state = state;
      write(main, id, logits[id]! - lse, step);
    }
    // Branches: the phrase's next piece, then a word boundary, then greedy.
    for (const b of branches) {
      if (b.done || b.phrase!.offset < 0) continue;
      const { logits, state } = await stepper.step(b.state, b.last);
      b.state = state;
      const lse = logSoftmaxDenominator(logits);
      const p = b.phrase!;
      let id: number;
      if (p.completedAt !== undefined) id = argmax(logits);
      else if (p.offset < vocab.lengths[p.index]!) {
        const next = vocab.next[p.index]![p.offset]!;
        id = -1;
        for (const i of next.keys()) if (id < 0 || logits[i]! > logits[id]!) id = i;
        if (id < 0 || logits[id]! - lse < pieceMinLogprob) {
          b.done = true;
          b.phrase!.offset = -1; // dropped
          continue;
        }
        p.offset = next.get(id)!;
      } else {
        id = argmax(logits, vocab.boundary);
        p.completedAt = b.tokens.length;
      }
      write(b, id, logits[id]! - lse, step);
    }
    main = resolve(main);
    branches = branches.filter((b) => b.phrase!.offset >= 0);
  }
  return { tokens: main.tokens, ended: main.ended, repetition: main.repetition, firstEosLogprob, forced, branches: opened, accepted };

  /** The branches main opens at this step (before its own choice; `state`: after the step). */
  function openBranches(m: Hyp<S>, state: S, logits: Float32Array, lse: number): Array<Hyp<S>> {
    const best = new Map<number, [number, number]>(); // phrase → [piece, offset after it]
    for (const [id, p, off] of vocab.starts) {
      if (logits[id]! - lse < startMinLogprob) continue;
      const cur = best.get(p);
      if (!cur || logits[id]! > logits[cur[0]]!) best.set(p, [id, off]);
    }
    const out: Array<Hyp<S>> = [];
    for (const [p, [id, off]] of [...best].sort((a, b) => logits[b[1][0]]! - logits[a[1][0]]!).slice(0, perPosition)) {
      if (branches.filter((b) => !b.done).length + out.length >= maxLive || opened >= maxBranches) break;
      const b: Hyp<S> = { ...m, state, tokens: m.tokens.slice(), prefix: m.prefix.slice(), phrase: { index: p, offset: off, from: m.tokens.length } };
      b.tokens.push({ id, logprob: logits[id]! - lse });
      b.prefix.push(score(b) + logits[id]! - lse);
      b.last = id;
      opened++;
      out.push(b);
    }
    return out;
  }

  /** Compares each branch that has met main again; returns the main hypothesis after that. */
  function resolve(m: Hyp<S>): Hyp<S> {
    for (const b of branches) {
      const p = b.phrase!;
      if (p.offset < 0 || p.completedAt === undefined) continue;
      const same = b.tokens.length === m.tokens.length && b.tokens.every((t, i) => t.id === m.tokens[i]!.id);
      if (same) {
        decided(b); // main wrote the phrase itself
        continue;
      }
      let verdict: boolean | undefined;
      const afterPhrase = p.completedAt;
      if (b.done && m.done) verdict = score(b) + phraseBonus > score(m);
      else {
        // b's last tokens (written after the phrase) found in main's, or main's last tokens in b's after the phrase.
        const j = b.tokens.length - SYNC_TOKENS >= afterPhrase ? syncPoint(m.tokens, b.tokens, p.from) : -1;
        const k = j < 0 && !m.done ? syncPoint(b.tokens, m.tokens, afterPhrase) : -1;
        // Scores up to the meeting point (end-of-sequence, when one has ended, is not part of it).
        if (j >= 0) verdict = b.prefix[b.tokens.length]! + phraseBonus > m.prefix[j]!;
        else if (k >= 0) verdict = b.prefix[k]! + phraseBonus > m.prefix[m.tokens.length]!;
      }
      if (verdict === undefined) continue;
      const stillGoing = !b.done;
      decided(b);
      if (verdict) {
        accepted++;
        // b goes on as main (if main had already moved past the meeting point, b has caught up with it in meaning).
        const won: Hyp<S> = { ...b, done: !stillGoing, phrase: undefined };
        branches = branches.filter((x) => x !== b && x.phrase!.from < p.from);
        return resolve(won);
      }
    }
    return m;
  }

  function decided(b: Hyp<S>): void {
    b.phrase!.offset = -1;
    b.done = true;
  }
}
