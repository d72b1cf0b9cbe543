/**
 * The custom vocabulary's second, acoustically verified pass: where the written words sound like a
 * listed phrase ("blue medicine" ~ Blumetric, "Valerie" ~ Velloria), the forced aligner is offered
 * both — the words heard, and the phrase's pronunciation — over the same audio, and the phrase is
 * written only where the audio fits it better than the words by more than a calibrated penalty.
 *
 * 1. Candidates (pure): spans of written words whose phones (cmudict, else letter-to-sound) are
 *    within `maxDistance` of a phrase's (a weighted phone edit distance: vowels for vowels and
 *    consonants of one manner cost half), closest first, not overlapping, at most `maxCandidates`.
 * 2. Verification (one extra alignment, only when there are candidates): the utterance's alignment
 *    grammar with each candidate span as one slot whose alternatives are the words heard and the
 *    phrase, the phrase's entry penalised by `penalty` nats. The path the aligner takes says which was said.
 */
import type { PocketSphinxEngine } from '../engines/pocketsphinx.js';
import type { Phones } from '../pronounce.js';
import type { WrittenWord } from './words.js';

export interface VerifyTuning {
  /** Whether the pass runs at all (bench/vocabulary.ts turns it off for the peer). */
  verify: boolean;
  /** A span is a candidate when its weighted phone distance to a phrase is at most this fraction of the phrase's phones. */
  maxDistance: number;
  /** Nats of acoustic log likelihood the phrase must win by over the words heard (the aligner's path score). */
  penalty: number;
  /** Candidates checked per utterance. */
  maxCandidates: number;
}

export const VERIFY_TUNING: Readonly<VerifyTuning> = Object.freeze({ verify: true, maxDistance: 0.5, penalty: 0, maxCandidates: 8 });

export interface Candidate {
  at: number;
  length: number;
  phrase: number;
  distance: number;
}

const CLASS: Record<string, string> = {};
for (const [cls, phones] of Object.entries({
  vowel: 'AA AE AH AO AW AY EH ER EY IH IY OW OY UH UW',
  stop: 'B D G K P T',
  fricative: 'CH DH F HH JH S SH TH V Z ZH',
  nasal: 'M N NG',
  liquid: 'L R W Y',
})) {
  for (const p of phones.split(' ')) CLASS[p] = cls;
}
const substitution = (a: string, b: string) => (a === b ? 0 : CLASS[a] === CLASS[b] ? 0.5 : 1);
/** Schwa comes and goes in fast speech and between the rules' and the speakers' pronunciations. */
const indel = (p: string) => (p === 'AH' ? 0.5 : 1);

/** Weighted edit distance between two phone strings. */
export function phoneDistance(a: Phones, b: Phones): number {
  let prev = [0];
  for (let j = 1; j <= b.length; j++) prev.push(prev[j - 1]! + indel(b[j - 1]!));
  for (let i = 1; i <= a.length; i++) {
    const cur = [prev[0]! + indel(a[i - 1]!)];
    for (let j = 1; j <= b.length; j++) {
      cur.push(Math.min(prev[j]! + indel(a[i - 1]!), cur[j - 1]! + indel(b[j - 1]!), prev[j - 1]! + substitution(a[i - 1]!, b[j - 1]!)));
    }
    prev = cur;
  }
  return prev[b.length]!;
}

/** Every concatenation of one pronunciation per word (at most `limit`, first variants first). */
export function joinedPronunciations(perWord: readonly (readonly Phones[])[], limit = 8): Phones[] {
  let out: string[][] = [[]];
  for (const variants of perWord) {
    if (variants.length === 0) return [];
    const next: string[][] = [];
    for (const v of variants) for (const o of out) if (next.length < limit) next.push([...o, ...v]);
    out = next;
  }
  return out;
}

export interface PhraseSounds {
  /** The phrase's words, lower case ("lumora", "cloud"). */
  words: readonly string[];
  /** Its pronunciations, whole ("L UW M AO R AH K L AW D"). */
  phones: readonly Phones[];
}

const spells = (words: readonly string[], at: number, phrase: readonly string[]) => at >= 0 && phrase.every((w, k) => words[at + k] === w);

/**
 * Whether the phrase is written right before or after the span: a word next to a name is not the name
 * said twice ("the Quintara printer" heard, "printer" fits Quintara's sound when the aligner may
 * stretch the name over it: flite slt, held-out).
 */
function besidePhrase(words: readonly string[], at: number, length: number, phrase: readonly string[]): boolean {
  return spells(words, at - phrase.length, phrase) || spells(words, at + length, phrase);
}

/**
 * Spans of `words` (lower case, punctuation stripped) that sound like a phrase: the closest
 * non-overlapping ones within `maxDistance`, in order. Spans with a digit, spans already written as a
 * phrase (`taken[i]` true), spans right beside the same phrase and words with no pronunciation are left alone.
 */
export function findCandidates(
  words: readonly string[],
  pronounce: (word: string) => Phones[],
  phrases: readonly PhraseSounds[],
  taken: readonly boolean[],
  tuning: Pick<VerifyTuning, 'maxDistance' | 'maxCandidates'> = VERIFY_TUNING,
): Candidate[] {
  const prons = words.map((w) => (/\d/.test(w) || w === '' ? [] : pronounce(w)));
  const found: Candidate[] = [];
  for (const [p, phrase] of phrases.entries()) {
    const shortest = Math.min(...phrase.phones.map((ph) => ph.length));
    if (!Number.isFinite(shortest) || shortest === 0) continue;
    for (let at = 0; at < words.length; at++) {
      for (let length = 1; length <= phrase.words.length + 2 && at + length <= words.length; length++) {
        const span = words.slice(at, at + length);
        if (taken.slice(at, at + length).some(Boolean)) break;
        if (span.length === phrase.words.length && span.every((w, k) => w === phrase.words[k])) continue;
        if (besidePhrase(words, at, length, phrase.words)) continue;
        const spoken = joinedPronunciations(prons.slice(at, at + length));
        if (spoken.length === 0) break;
        let best = Infinity;
        for (const target of phrase.phones) {
          for (const s of spoken) {
            // Lengths too far apart cannot be within the distance (every missing phone costs ≥ 0.5).
            if (Math.abs(s.length - target.length) * 0.5 > tuning.maxDistance * target.length) continue;
            best = Math.min(best, phoneDistance(s, target) / target.length);
          }
        }
        if (best <= tuning.maxDistance) found.push({ at, length, phrase: p, distance: best });
      }
    }
  }
  const cells = new Set<number>();
  const out: Candidate[] = [];
  for (const c of found.sort((a, b) => a.distance - b.distance || b.length - a.length)) {
    if (out.length >= tuning.maxCandidates) break;
    const span = Array.from({ length: c.length }, (_, k) => c.at + k);
    if (span.some((i) => cells.has(i))) continue;
    span.forEach((i) => cells.add(i));
    out.push(c);
  }
  return out.sort((a, b) => a.at - b.at);
}

export interface Verified {
  /** Candidates offered to the aligner (those that could be pronounced). */
  offered: Candidate[];
  /** Candidates the audio fits better as the phrase. */
  accepted: Candidate[];
  /** With `measure`: per candidate, the phrase's path score minus the words' (nats), from two forced alignments each. */
  deltas?: number[];
}

/** A penalty no path takes when it has another (nats). */
const FORCED_OUT = 1e4;

/** The aligner's name for a pronunciation ("~2:z.eh.n.t.r.ih.k.s"): `tag` keeps candidates apart on the path. */
const wordName = (tag: string, phones: Phones) => `~${tag}:${phones.join('.').toLowerCase()}`;

/**
 * Offers each candidate's phrase beside the words heard to the aligner and keeps the candidates
 * whose phrase the path takes. `pronounce` gives the phrase's words (dictionary or letter-to-sound),
 * added to the aligner's dictionary under names of their own; the words heard must all be
 * dictionary words (never the phone loop, which would absorb anything). A candidate that cannot be
 * pronounced is not offered.
 */
export function verifyCandidates(
  aligner: Pick<PocketSphinxEngine, 'align' | 'addWord'>,
  samples: Int16Array,
  written: readonly WrittenWord[],
  candidates: readonly Candidate[],
  phrases: readonly PhraseSounds[],
  o: { pronounce: (word: string) => Phones[]; inDictionary: (word: string) => boolean; abort: Int32Array; penalty?: number; measure?: boolean },
): Verified {
  const penalty = o.penalty ?? VERIFY_TUNING.penalty;
  type Offer = { candidate: Candidate; heard: string[][]; phrase: string[] };
  const offers: Offer[] = [];
  for (const [k, c] of candidates.entries()) {
    const heard = heardAlternatives(written.slice(c.at, c.at + c.length), o.inDictionary);
    const words = phrases[c.phrase]!.words;
    const phrase = words.map((w) => o.pronounce(w).map((ph) => (aligner.addWord(wordName(`${k}`, ph), ph.join(' ')) ? wordName(`${k}`, ph) : '')));
    if (heard.length === 0 || phrase.some((choices) => choices.length === 0 || choices.includes(''))) continue;
    offers.push({ candidate: c, heard, phrase: phrase.map((choices) => [...new Set(choices)].join('|')) });
  }
  const offered = offers.map((x) => x.candidate);
  if (offers.length === 0) return { offered, accepted: [], ...(o.measure ? { deltas: [] } : {}) };

  /**
   * Slots and penalties with each offer's span as one slot of both alternatives. `pick` forces one
   * side of one offer (and the words heard for the others) by penalties alone, so that the grammar,
   * and with it the search, stays the same: scores then compare (measure).
   */
  const grammar = (pick?: { offer: Offer; side: 'heard' | 'phrase' }) => {
    const slots: string[][][] = [];
    const penalties: number[][] = [];
    let i = 0;
    for (const offer of offers) {
      for (; i < offer.candidate.at; i++) {
        slots.push(written[i]!.readings);
        penalties.push([]);
      }
      const side = pick?.offer === offer ? pick.side : pick ? 'heard' : undefined;
      slots.push([...offer.heard, offer.phrase]);
      const heard = side === 'phrase' ? FORCED_OUT : 0;
      penalties.push([...offer.heard.map(() => heard), side === 'heard' ? FORCED_OUT : side === 'phrase' ? 0 : penalty]);
      i = offer.candidate.at + offer.candidate.length;
    }
    for (; i < written.length; i++) {
      slots.push(written[i]!.readings);
      penalties.push([]);
    }
    return { slots, penalties };
  };

  const { slots, penalties } = grammar();
  const path = aligner.align(samples, slots, o.abort, penalties);
  const onPath = new Set(path.words.map((w) => w.word.split(':')[0]!));
  const accepted = offers.filter((_, k) => onPath.has(`~${candidates.indexOf(offers[k]!.candidate)}`)).map((x) => x.candidate);
  if (!o.measure) return { offered, accepted };
  const deltas = offers.map((offer) => {
    const score = (side: 'heard' | 'phrase') => {
      const g = grammar({ offer, side });
      return aligner.align(samples, g.slots, o.abort, g.penalties).score ?? 0;
    };
    return score('phrase') - score('heard');
  });
  return { offered, accepted, deltas };
}

/**
 * The ways the written words of a span may have been said, as dictionary words; none when a word is
 * not in the dictionary (such spans are the near-miss rewrite's, and a word heard in a call is never
 * given to letter-to-sound rules).
 */
function heardAlternatives(span: readonly WrittenWord[], inDictionary: (word: string) => boolean): string[][] {
  let out: string[][] = [[]];
  for (const w of span) {
    const readings: string[][] = [];
    for (const reading of w.readings) {
      const positions = reading.map((position) => position.split('|').filter(inDictionary).join('|'));
      if (positions.every((p) => p !== '')) readings.push(positions);
    }
    if (readings.length === 0) return [];
    const next: string[][] = [];
    for (const r of readings) for (const prefix of out) if (next.length < 8) next.push([...prefix, ...r]);
    out = next;
  }
  return out;
}
