/**
 * Sentiment per utterance (docs/analytics.md, "Sentiment"): VADER (Hutto & Gilbert 2014; npm `vader-sentiment`, the
 * lexicon and rules) on the utterance's words, after a small layer of rules for what ASR output and
 * customer-service talk look like:
 *
 * - ASR output has no punctuation or capitals, so VADER's "!" and ALL-CAPS boosts never fire; the
 *   words are passed lower-cased, fillers and redacted events dropped (their kind, src/text/event-kind.ts),
 *   and numerals dropped (VADER's lexicon holds tokens such as `4q`, and a numeral
 *   carries no sentiment).
 * - Domain phrases VADER reads wrong: "would like to" / "like to" / "sounds like" (request or
 *   comparison, not liking), "no problem" / "no worries" / "not a problem" (courtesy, not a problem),
 *   "thank you" (VADER knows "thanks" but not "thank"), and customer-service complaints VADER has no
 *   words for ("fed up", "waste of time", "charged twice", "third time I have called", "on hold for",
 *   "want my money back", "doesn't work"). Each phrase is rewritten into a word of the lexicon with
 *   the intended valence before VADER runs, so VADER's negation and booster rules still apply.
 *
 * The compound score (in [-1, 1]) maps to the five labels of the established service with
 * thresholds measured on bench/lib/sentiment-set.ts (docs/analytics.md).
 */
import vader from 'vader-sentiment';
import { eventKind, isSpoken } from '../text/event-kind.js';
import type { SentimentLabel, WordEvent } from '../types.js';


/** Compound score thresholds: ≥ STRONG Positive, ≥ MILD Mostly Positive, ≤ -MILD Mostly Negative, ≤ -STRONG Negative. */
export const MILD = 0.2;
export const STRONG = 0.5;

export interface Sentiment {
  label: SentimentLabel;
  /** VADER's compound score after the rules, rounded to 3 decimals, in [-1, 1]. */
  score: number;
}

/** Phrase rewrites, applied in order on the lower-cased, space-separated words. */
const REWRITES: ReadonlyArray<[RegExp, string]> = [
  // courtesy, not a problem
  [/\b(no|not a) (problem|problems|worries|worry)\b/g, 'fine'],
  [/\bthank you\b/g, 'thanks'],
  // "like" as a request or a comparison; kept when someone likes something ("i really like it")
  [/\b(would|d|wed|id|youd|we'd|i'd|you'd) like\b/g, '$1 want'],
  [/\b(sounds|looks|seems|feels|feel|looked|sounded|something|just|more|less|things) like\b/g, '$1 as'],
  [/\blike (a|an|to)\b/g, 'as $1'],
  [/\b(technical|customer|tech|it) support\b/g, 'helpdesk'],
  [/\b(you|they|he|she) promised\b/g, '$1 said'],
  // VADER reads "never" as a negation of what follows: "never had such bad service" is not praise
  [/\bnever (had|seen|experienced|heard) (such|so)\b/g, '$1 $2'],
  // complaints the lexicon has no words for
  [/\bfed up\b/g, 'angry'],
  [/\bwaste of (my |our )?time\b/g, 'useless'],
  [/\b(charged|billed) (me )?(twice|double|two times)\b/g, 'angry'],
  [/\b(third|fourth|fifth|3rd|4th|5th|several|many) times? (i have|i've|ive|we have|ive been|that i have) (called|rung|phoned)\b/g, 'frustrated'],
  [/\bon hold for\b/g, 'waiting frustrated for'],
  [/\b(want|need) (my|our) money back\b/g, 'angry'],
  [/\b(does not|doesn't|doesnt|did not|didn't|didnt|still not|never) work(s|ed)?\b/g, 'broken'],
  [/\bkeeps? (dropping|failing|crashing|breaking)\b/g, 'broken'],
  [/\b(nobody|no one|noone) (has )?(helped|help|called)( me| us)?\b/g, 'useless'],
  [/\b(call|phone) back never\b/g, 'disappointed'],
  [/\bbroke\b/g, 'broken'],
  [/\bcomplain(t)?\b/g, 'complain'],
  // politeness and request words, not sentiment (after the phrases that contain them)
  [/\bplease\b/g, ''],
  [/\bwant(s|ed)?\b/g, ''],
];

/** The words VADER sees for an utterance's words (see the module comment). */
export function sentimentText(words: readonly string[]): string {
  const kept = words
    .map((w) => w.toLowerCase().replace(/[^\p{L}\p{N}']+/gu, ' ').trim())
    .filter((w) => w !== '' && !/\d/.test(w));
  let text = ` ${kept.join(' ')} `;
  for (const [re, to] of REWRITES) text = text.replace(re, to);
  return text.trim().replace(/\s+/g, ' ');
}

/** The label for a compound score. */
export function labelFor(score: number): SentimentLabel {
  if (score >= STRONG) return 'Positive';
  if (score >= MILD) return 'Mostly Positive';
  if (score <= -STRONG) return 'Negative';
  if (score <= -MILD) return 'Mostly Negative';
  return 'Neutral';
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** Sentiment of one utterance's words (as the ASR wrote them). */
export function scoreWords(words: readonly string[]): Sentiment {
  const text = sentimentText(words);
  if (text === '') return { label: 'Neutral', score: 0 };
  const score = Math.max(-1, Math.min(1, vader.SentimentIntensityAnalyzer.polarity_scores(text).compound));
  return { label: labelFor(score), score: round(score) };
}

interface SentimentUtterance {
  start: number;
  end: number;
  metadata: { channel: number; speaker?: string; sentiment?: SentimentLabel; sentimentscore?: number };
  events: ReadonlyArray<Pick<WordEvent, 'word' | 'start' | 'end' | 'kind' | 'redacted'>>;
}

/** The words of an utterance VADER is given: its spoken words, neither fillers nor redacted words (eventKind). */
export function sentimentWords(events: SentimentUtterance['events']): string[] {
  return events.filter((e) => eventKind(e) === 'word').map((e) => e.word);
}

/** The key a channel or speaker is summarised under: the speaker when diarized, else the channel number. */
export function partyKey(u: { metadata: { channel: number; speaker?: string } }): string {
  return u.metadata.speaker ?? String(u.metadata.channel);
}

/** Sets one utterance's `metadata.sentiment` and `metadata.sentimentscore` (in place; a live call's as it is decoded). */
export function scoreUtterance(u: SentimentUtterance): Sentiment {
  const s = scoreWords(sentimentWords(u.events));
  u.metadata.sentiment = s.label;
  u.metadata.sentimentscore = s.score;
  return s;
}

/**
 * Sets `metadata.sentiment` and `metadata.sentimentscore` on every utterance (in place) and returns
 * the per channel/speaker summary (sentimentByParty).
 */
export function applySentiment(utterances: SentimentUtterance[]): Record<string, Sentiment> {
  for (const u of utterances) scoreUtterance(u);
  return sentimentByParty(utterances);
}

/**
 * The per channel/speaker summary of scored utterances: the mean score of that party's utterances that
 * carry any words, weighted by their number of words, and its label.
 */
export function sentimentByParty(utterances: readonly SentimentUtterance[]): Record<string, Sentiment> {
  const sums = new Map<string, { weighted: number; words: number }>();
  for (const u of utterances) {
    const n = u.events.filter(isSpoken).length;
    if (n === 0) continue;
    const key = partyKey(u);
    const acc = sums.get(key) ?? { weighted: 0, words: 0 };
    acc.weighted += (u.metadata.sentimentscore ?? 0) * n;
    acc.words += n;
    sums.set(key, acc);
  }
  const out: Record<string, Sentiment> = {};
  for (const key of [...sums.keys()].sort()) {
    const { weighted, words } = sums.get(key)!;
    const score = round(weighted / words);
    out[key] = { label: labelFor(score), score };
  }
  return out;
}
