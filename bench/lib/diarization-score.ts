/**
 * Diarization scores: word attribution (each word's speaker against the truth at its middle, best
 * one-to-one mapping of labels, extra labels count as errors) and DER (10 ms frames, 0.25 s collar
 * around every reference boundary excluded, overlap counted per speaker).
 */
export interface Labelled {
  start: number;
  end: number;
  speaker: string;
}

function permutations<T>(xs: T[], k: number): T[][] {
  if (k === 0) return [[]];
  return xs.flatMap((x, i) => permutations([...xs.slice(0, i), ...xs.slice(i + 1)], k - 1).map((p) => [x, ...p]));
}

/** The one-to-one mapping hyp label → ref label that maximises `score(hyp, ref)` (brute force; a few labels). */
export function bestMapping(hyp: string[], ref: string[], score: (h: string, r: string) => number): Map<string, string> {
  let best = new Map<string, string>();
  let bestScore = -Infinity;
  const k = Math.min(hyp.length, ref.length);
  const H = hyp.length <= ref.length ? hyp : ref;
  const R = hyp.length <= ref.length ? ref : hyp;
  for (const perm of permutations(R, k)) {
    const pairs = H.map((h, i) => (hyp.length <= ref.length ? [h, perm[i]!] : [perm[i]!, h]) as [string, string]);
    const s = pairs.reduce((acc, [h, r]) => acc + score(h, r), 0);
    if (s > bestScore) [bestScore, best] = [s, new Map(pairs)];
  }
  return best;
}

/** Share of reference words whose hypothesis speaker (at the word's middle) maps to the word's own speaker. */
export function wordAttribution(ref: Labelled[], hypAt: (t: number) => string | undefined): number {
  const hyps = ref.map((w) => hypAt((w.start + w.end) / 2) ?? '∅');
  const hl = [...new Set(hyps)].filter((h) => h !== '∅');
  const rl = [...new Set(ref.map((w) => w.speaker))];
  const count = (h: string, r: string) => ref.filter((w, i) => hyps[i] === h && w.speaker === r).length;
  const map = bestMapping(hl, rl, count);
  return ref.filter((w, i) => map.get(hyps[i]!) === w.speaker).length / Math.max(1, ref.length);
}

const FRAME = 0.01;

function frames(segs: Labelled[], n: number): Set<string>[] {
  const out = Array.from({ length: n }, () => new Set<string>());
  for (const s of segs) for (let f = Math.max(0, Math.round(s.start / FRAME)); f < Math.min(n, Math.round(s.end / FRAME)); f++) out[f]!.add(s.speaker);
  return out;
}

/** Diarization error rate with a collar (seconds) around reference boundaries. */
export function der(ref: Labelled[], hyp: Labelled[], seconds: number, collar = 0.25): { der: number; miss: number; fa: number; confusion: number } {
  const n = Math.ceil(seconds / FRAME) + 1;
  const R = frames(ref, n);
  const H = frames(hyp, n);
  const skip = new Uint8Array(n);
  for (const s of ref)
    for (const t of [s.start, s.end]) for (let f = Math.max(0, Math.round((t - collar) / FRAME)); f < Math.min(n, Math.round((t + collar) / FRAME)); f++) skip[f] = 1;
  const rl = [...new Set(ref.map((s) => s.speaker))];
  const hl = [...new Set(hyp.map((s) => s.speaker))];
  const overlap = (h: string, r: string) => R.reduce((acc, rs, f) => acc + (!skip[f] && rs.has(r) && H[f]!.has(h) ? 1 : 0), 0);
  const map = bestMapping(hl, rl, overlap);
  let total = 0;
  let miss = 0;
  let fa = 0;
  let conf = 0;
  for (let f = 0; f < n; f++) {
    if (skip[f]) continue;
    const nr = R[f]!.size;
    const nh = H[f]!.size;
    let correct = 0;
    for (const h of H[f]!) if (R[f]!.has(map.get(h) ?? '∅')) correct++;
    total += nr;
    miss += Math.max(0, nr - nh);
    fa += Math.max(0, nh - nr);
    conf += Math.min(nr, nh) - correct;
  }
  const d = (x: number) => x / Math.max(1, total);
  return { der: d(miss + fa + conf), miss: d(miss), fa: d(fa), confusion: d(conf) };
}

/**
 * Word attribution against reference turns (real conversation, no reference words): each hypothesis word
 * is scored at its middle against the speakers whose turns cover it (any of them, where turns overlap);
 * a word inside no turn is scored against the nearest turn within `tolerance` seconds, else not counted.
 * Hypothesis labels map one-to-one to reference speakers (the mapping that gets most words right; extra
 * labels are errors). Returns the share right and the number of words counted.
 */
export function turnAttribution(turns: Labelled[], words: Labelled[], tolerance = 0.25): { right: number; words: number } {
  const refAt = (t: number): string[] => {
    const inside = turns.filter((s) => t >= s.start && t <= s.end).map((s) => s.speaker);
    if (inside.length) return inside;
    let best: Labelled | undefined;
    let bestD = tolerance;
    for (const s of turns) {
      const d = t < s.start ? s.start - t : t - s.end;
      if (d <= bestD) [best, bestD] = [s, d];
    }
    return best ? [best.speaker] : [];
  };
  const scored = words.map((w) => ({ hyp: w.speaker, ref: refAt((w.start + w.end) / 2) })).filter((w) => w.ref.length > 0);
  const hl = [...new Set(scored.map((w) => w.hyp))];
  const rl = [...new Set(turns.map((t) => t.speaker))];
  const map = bestMapping(hl, rl, (h, r) => scored.filter((w) => w.hyp === h && w.ref.includes(r)).length);
  const right = scored.filter((w) => w.ref.includes(map.get(w.hyp) ?? '∅')).length;
  return { right: right / Math.max(1, scored.length), words: scored.length };
}
