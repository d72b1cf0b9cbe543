/**
 * What a custom vocabulary does to an utterance's written words after decoding (the beam over
 * phrase starts, phrase-beam.ts, ran during it), in order:
 * 1. near misses that are not English words become the phrase (near-miss.ts);
 * 2. the acoustically verified pass (phrase-verify.ts): spans that sound like a phrase are offered to
 *    the forced aligner beside the phrase; where the audio fits the phrase better, it is written;
 * 3. words that spell a phrase are written as the vocabulary spells it (vocab.ts vocabularySpellings).
 */
import type { PocketSphinxEngine } from '../engines/pocketsphinx.js';
import { pronunciations, readDictionary, type Phones } from '../pronounce.js';
import { replaceSpans, rewriteNearMisses } from './near-miss.js';
import { findCandidates, joinedPronunciations, verifyCandidates, VERIFY_TUNING, type Candidate, type PhraseSounds, type VerifyTuning } from './phrase-verify.js';
import { vocabularySpellings, type Vocabulary } from './vocab.js';
import { spelledDisplay, type WrittenWord } from './words.js';

export interface VocabPassContext {
  /** The forced aligner and its dictionary file; without one only the near misses and spellings apply. */
  aligner?: { engine: Pick<PocketSphinxEngine, 'align' | 'addWord'>; dict: string };
  samples: Int16Array;
  abort: Int32Array;
  tuning?: Partial<VerifyTuning> & { measure?: boolean };
  /** Told what the verified pass found (bench/vocabulary-tune.ts). */
  onCheck?: (check: VocabCheck) => void;
}

export interface VocabCheck {
  words: string[];
  candidates: Candidate[];
  accepted: Candidate[];
  deltas?: number[];
  phrases: readonly string[][];
}

const bare = (w: string) => w.toLowerCase().replace(/^[^\p{L}\p{N}']+|[^\p{L}\p{N}']+$/gu, '');
const sounds = new WeakMap<Vocabulary, PhraseSounds[]>();

/** Each phrase's words and pronunciations (cached per compiled vocabulary). */
function phraseSounds(vocab: Vocabulary, pronounce: (w: string) => Phones[]): PhraseSounds[] {
  let s = sounds.get(vocab);
  if (!s) {
    s = vocab.phrases.map((ws) => {
      const words = ws.map(bare);
      return { words, phones: joinedPronunciations(words.map((w) => pronounce(w).slice(0, 2)), 4) };
    });
    sounds.set(vocab, s);
  }
  return s;
}

export function applyVocabulary(written: WrittenWord[], vocab: Vocabulary, ctx: VocabPassContext): WrittenWord[] {
  if (ctx.aligner) {
    const dict = readDictionary(ctx.aligner.dict);
    // Words heard: the dictionary's pronunciations only; phrases: letter-to-sound for the rest.
    const pronounce = (w: string) => pronunciations(w, dict);
    written = rewriteNearMisses(written, vocab, dict);
    const words = written.map((w) => bare(w.text));
    const taken = vocabularySpellings(words, vocab).map((s) => s !== undefined);
    const phrases = phraseSounds(vocab, (w) => pronunciations(w, dict, true));
    const tuning = { ...VERIFY_TUNING, ...ctx.tuning };
    const candidates = tuning.verify ? findCandidates(words, pronounce, phrases, taken, tuning) : [];
    if (candidates.length > 0) {
      const { offered, accepted, deltas } = verifyCandidates(ctx.aligner.engine, ctx.samples, written, candidates, phrases, {
        pronounce: (w) => pronunciations(w, dict, true),
        inDictionary: (w) => dict.has(w),
        abort: ctx.abort,
        penalty: tuning.penalty,
        measure: tuning.measure,
      });
      ctx.onCheck?.({ words, candidates: offered, accepted, ...(deltas ? { deltas } : {}), phrases: vocab.phrases });
      written = replaceSpans(written, accepted, vocab);
    }
  }
  vocabularySpellings(
    written.map((w) => w.text),
    vocab,
  ).forEach((s, j) => {
    if (s === undefined) return;
    const w = written[j]!;
    w.spelled = s;
    if (w.display) w.display = spelledDisplay(w.display, s);
  });
  return written;
}
