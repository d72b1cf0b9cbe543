/**
 * A deterministic synthetic transcript corpus for search benchmarks (embedded and Elasticsearch):
 * two-channel calls of N words in 10-word utterances with word times, a Zipf-distributed vocabulary,
 * custom metadata, call datetimes across 2024, and a few planted phrases with known frequencies.
 *   for (const t of generateCorpus({ count: 20000 })) …   — same seed, same corpus, on every machine.
 */
import type { TranscriptDocument } from '../../src/types.js';
import type { IndexedTranscript } from '../../src/search/transcript-index.js';

export interface CorpusOptions {
  count: number;
  wordsPerDoc?: number;
  seed?: number;
  company?: string;
  org?: string;
  /** Transcripts are spread over this many folders f0…f(n-1). */
  folders?: number;
}

/** Phrases planted into a known share of transcripts (on a random channel). */
export const PLANTED = [
  { phrase: 'cancel my subscription', share: 0.05 },
  { phrase: 'speak to a manager', share: 0.02 },
  { phrase: 'refund request', share: 0.1 },
  { phrase: 'credit card number', share: 0.01 },
] as const;

export const AGENTS = Array.from({ length: 50 }, (_, i) => `agent${String(i).padStart(2, '0')}`);

/** mulberry32: small, fast, deterministic. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const COMMON = ('the i you to and a of it that is in we for my this can have your be on with just so what do not are ' +
  'was me at but okay yes no like know get all there one about call account please thank help need will would ' +
  'if right out time now how see going sure here they could well an up go let look from our today number order').split(' ');

/** A vocabulary of common words followed by pronounceable pseudo-words, most frequent first. */
export function vocabulary(size = 8000, seed = 7): string[] {
  const rand = prng(seed);
  const C = 'bcdfghjklmnprstvwz';
  const V = 'aeiou';
  const words = new Set(COMMON);
  while (words.size < size) {
    const syllables = 2 + Math.floor(rand() * 2);
    let w = '';
    for (let s = 0; s < syllables; s++) w += C[Math.floor(rand() * C.length)]! + V[Math.floor(rand() * V.length)]!;
    if (rand() < 0.3) w += C[Math.floor(rand() * C.length)]!;
    words.add(w);
  }
  return [...words];
}

/** Draws word ranks with probability ∝ 1/(rank+1). */
function zipfSampler(n: number, rand: () => number): () => number {
  const cum = new Float64Array(n);
  let sum = 0;
  for (let i = 0; i < n; i++) cum[i] = sum += 1 / (i + 1);
  return () => {
    const x = rand() * sum;
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cum[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export function* generateCorpus(options: CorpusOptions): Generator<IndexedTranscript> {
  const { count, wordsPerDoc = 300, seed = 1, company = 'bench', org = 'calls', folders = 4 } = options;
  const rand = prng(seed);
  const vocab = vocabulary();
  const draw = zipfSampler(vocab.length, rand);
  const year = Date.UTC(2024, 0, 1);
  for (let n = 0; n < count; n++) {
    const channels: string[][] = [[], []];
    for (let i = 0; i < wordsPerDoc; i++) channels[i % 20 < 10 ? 0 : 1]!.push(vocab[draw()]!);
    for (const { phrase, share } of PLANTED) {
      if (rand() < share) {
        const ch = channels[rand() < 0.5 ? 0 : 1]!;
        const words = phrase.split(' ');
        const at = Math.floor(rand() * (ch.length - words.length));
        ch.splice(at, words.length, ...words);
      }
    }
    const utterances: TranscriptDocument['utterances'] = [];
    channels.forEach((words, channel) => {
      for (let u = 0; u * 10 < words.length; u++) {
        const start = u * 8 + channel * 4 + 0.3;
        const events = words.slice(u * 10, u * 10 + 10).map((word, i) => ({
          word,
          start: Math.round((start + i * 0.35) * 1000) / 1000,
          end: Math.round((start + i * 0.35 + 0.3) * 1000) / 1000,
          confidence: Math.round((0.6 + rand() * 0.4) * 100) / 100,
        }));
        utterances.push({ start: events[0]!.start, end: events[events.length - 1]!.end, confidence: 0.8, metadata: { channel, uttid: u }, events });
      }
    });
    utterances.sort((a, b) => a.start - b.start);
    const duration = Math.round((utterances[utterances.length - 1]!.end + 1 + rand() * 30) * 100) / 100;
    const tid = `c${String(n).padStart(7, '0')}`;
    yield {
      tid,
      company,
      org,
      folder: `f${n % folders}`,
      datetime: new Date(year + Math.floor(rand() * 366 * 86_400_000)).toISOString(),
      document: {
        asr: 'voxdex bench',
        model: rand() < 0.8 ? 'en-us-8k' : 'en-us-16k',
        confidence: Math.round((0.5 + rand() * 0.5) * 1000) / 1000,
        audiosecs: duration,
        nchannels: 2,
        requestid: `req-${n}`,
        source: `call-${n}.wav`,
        streamtags: { metadata: { agent: AGENTS[Math.floor(rand() * AGENTS.length)]!, queue: rand() < 0.5 ? 'billing' : 'support' } },
        chaninfo: [0, 1].map((channel) => ({ channel, audiosecs: duration, speechsecs: duration / 2 })),
        utterances,
      },
    };
  }
}

/** Queries every search benchmark runs (GET option maps), named by kind. */
export const BENCH_QUERIES: Array<{ kind: 'phrase' | 'boolean' | 'filtered' | 'wildcard'; options: Record<string, string> }> = [
  { kind: 'phrase', options: { terms: '"cancel my subscription"' } },
  { kind: 'phrase', options: { terms: '"speak to a manager"' } },
  { kind: 'phrase', options: { terms: '"refund request"' } },
  { kind: 'phrase', options: { terms: '"credit card number"' } },
  { kind: 'phrase', options: { terms: '"thank you"' } },
  { kind: 'phrase', options: { terms: '"please help"' } },
  { kind: 'boolean', options: { terms: 'refund | manager -subscription' } },
  { kind: 'boolean', options: { terms: '(cancel | credit) & account' } },
  { kind: 'boolean', options: { terms: 'subscription manager' } },
  { kind: 'filtered', options: { terms: '"refund request"', 'meta.agent': 'agent07' } },
  { kind: 'filtered', options: { terms: '"cancel my subscription"', from: '2024-03-01', to: '2024-05-31' } },
  { kind: 'filtered', options: { terms: 'manager', duration: '100-130', model: 'en-us-8k' } },
  { kind: 'wildcard', options: { terms: 'subscr*' } },
  { kind: 'wildcard', options: { terms: 'c?ncel' } },
];
