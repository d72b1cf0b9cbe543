/**
 * Step 3 of diarization (real conversation): agglomerative clustering of window embeddings with a stopping
 * rule calibrated per recording. Pure.
 *
 * How alike two stretches of one voice are depends on the recording (band, microphone, room, noise): on the
 * real meeting excerpts two windows 1.5 s apart of one speaker score a median cosine of 0.73–0.83, on clean
 * prompt recordings about the same, but the spread differs and so does the gap to other voices. So the
 * threshold is not a constant: the recording's own *reference similarity* — the median cosine between
 * windows one window-length apart inside one speech region (mostly one speaker: turns are longer than 1.5 s)
 * — minus `delta` (0.08, calibrated on the meeting excerpts trn00–03, 06–09 and the real-voice calls of
 * prompts a–l, bench/diarization.ts). Average linkage merges the most similar clusters until the best pair
 * is below the threshold; `speakers`, `minSpeakers` and `maxSpeakers` bound where it stops. Clusters with
 * fewer windows than `minWindows` / `minShare` (a cough, laughter, a word of overlap) join their nearest.
 */
import { centroids, dot } from './cluster.js';
import type { Span } from './regions.js';

export interface AhcOptions {
  /** The threshold is the reference similarity minus this. */
  delta: number;
  /** The threshold never goes below this (two different voices' windows average 0.58–0.61 on the meetings). */
  minThreshold: number;
  /** Reference similarity when a recording has too few window pairs to measure it. */
  fallbackReference: number;
  /** Clusters smaller than max(minWindows, minShare × windows) are folded into their nearest (k estimated). */
  minWindows: number;
  minShare: number;
  /** At most this many windows go into the agglomeration (evenly sampled); the others join their nearest centroid. */
  maxPoints: number;
  speakers?: number;
  minSpeakers?: number;
  maxSpeakers?: number;
  /** The speech region of each window: a cluster heard in one region only is folded into its nearest. */
  regionOf?: number[];
}

export const AHC_DEFAULTS: Readonly<AhcOptions> = Object.freeze({ delta: 0.08, minThreshold: 0.62, fallbackReference: 0.78, minWindows: 3, minShare: 0.06, maxPoints: 400 });

export interface WindowClustering {
  labels: number[];
  k: number;
  reference: number;
  threshold: number;
}

/**
 * Median cosine between windows that start exactly one window length apart inside one region (`spans` on
 * the speech timeline, `regionOf[i]` the region of window i); `fallback` when fewer than 5 such pairs.
 */
export function referenceSimilarity(emb: Float32Array[], spans: Span[], regionOf: number[], windowSec: number, fallback = AHC_DEFAULTS.fallbackReference): number {
  const sims: number[] = [];
  for (let i = 0; i < spans.length; i++)
    for (let j = i + 1; j < spans.length && regionOf[j] === regionOf[i]; j++) {
      const gap = spans[j]!.start - spans[i]!.start;
      if (Math.abs(gap - windowSec) < 1e-6) sims.push(dot(emb[i]!, emb[j]!));
      if (gap > windowSec) break;
    }
  if (sims.length < 5) return fallback;
  sims.sort((a, b) => a - b);
  return sims[Math.floor(sims.length / 2)]!;
}

/** Relabels 0..k-1 in order of first appearance. */
export function compactLabels(labels: number[]): { labels: number[]; k: number } {
  const map = new Map<number, number>();
  const out = labels.map((l) => {
    if (!map.has(l)) map.set(l, map.size);
    return map.get(l)!;
  });
  return { labels: out, k: map.size };
}

/**
 * Average-linkage agglomeration (cosine) from every point alone: merges while the best pair reaches
 * `threshold` or there are more than `maxK` clusters, never below `minK`.
 */
export function agglomerateTo(points: Float32Array[], threshold: number, minK: number, maxK: number): number[] {
  const n = points.length;
  const sim = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) sim[i * n + j] = sim[j * n + i] = dot(points[i]!, points[j]!);
  const size = new Array<number>(n).fill(1);
  const alive = new Array<boolean>(n).fill(true);
  const parent = Array.from({ length: n }, (_, i) => i);
  let clusters = n;
  while (clusters > Math.max(1, minK)) {
    let bi = -1;
    let bj = -1;
    let best = -Infinity;
    for (let i = 0; i < n; i++) {
      if (!alive[i]) continue;
      for (let j = i + 1; j < n; j++) if (alive[j] && sim[i * n + j]! > best) [best, bi, bj] = [sim[i * n + j]!, i, j];
    }
    if (best < threshold && clusters <= maxK) break;
    for (let m = 0; m < n; m++) {
      if (!alive[m] || m === bi || m === bj) continue;
      sim[bi * n + m] = sim[m * n + bi] = (size[bi]! * sim[bi * n + m]! + size[bj]! * sim[bj * n + m]!) / (size[bi]! + size[bj]!);
    }
    size[bi]! += size[bj]!;
    alive[bj] = false;
    parent[bj] = bi;
    clusters--;
  }
  const find = (x: number): number => (parent[x] === x ? x : find(parent[x]!));
  return compactLabels(points.map((_, i) => find(i))).labels;
}

function nearestOf(p: Float32Array, cents: Float32Array[], skip = -1): number {
  let best = -1;
  let bestSim = -Infinity;
  cents.forEach((c, j) => {
    if (j === skip) return;
    const s = dot(p, c);
    if (s > bestSim) [best, bestSim] = [j, s];
  });
  return best;
}

/** Folds the smallest cluster under `minSize` into the nearest other, repeatedly, never below `minK` clusters. */
export function foldSmall(points: Float32Array[], labels: number[], minSize: number, minK: number): { labels: number[]; k: number } {
  let cur = compactLabels(labels);
  while (cur.k > Math.max(1, minK)) {
    const counts = new Array<number>(cur.k).fill(0);
    for (const l of cur.labels) counts[l]!++;
    let small = -1;
    counts.forEach((c, j) => {
      if (c < minSize && (small < 0 || c < counts[small]!)) small = j;
    });
    if (small < 0) break;
    const cents = centroids(points, cur.labels, cur.k);
    cur = compactLabels(cur.labels.map((l, i) => (l === small ? nearestOf(points[i]!, cents, small) : l)));
  }
  return cur;
}

/**
 * Folds clusters heard in one speech region only into their nearest, while more than `minK` remain: a
 * party to a conversation speaks more than once, while one stretch of one voice that sounds different
 * (another microphone, a raised voice) is the commonest false second speaker.
 */
export function foldSingleTurn(points: Float32Array[], labels: number[], regionOf: number[], minK: number): { labels: number[]; k: number } {
  let cur = compactLabels(labels);
  while (cur.k > Math.max(1, minK)) {
    const regions = Array.from({ length: cur.k }, () => new Set<number>());
    cur.labels.forEach((l, i) => regions[l]!.add(regionOf[i]!));
    const counts = new Array<number>(cur.k).fill(0);
    for (const l of cur.labels) counts[l]!++;
    let single = -1;
    regions.forEach((r, j) => {
      if (r.size === 1 && (single < 0 || counts[j]! < counts[single]!)) single = j;
    });
    if (single < 0) break;
    const cents = centroids(points, cur.labels, cur.k);
    cur = compactLabels(cur.labels.map((l, i) => (l === single ? nearestOf(points[i]!, cents, single) : l)));
  }
  return cur;
}

export function clusterWindows(points: Float32Array[], reference: number, opts: Partial<AhcOptions> = {}): WindowClustering {
  const o = { ...AHC_DEFAULTS, ...opts };
  const n = points.length;
  const threshold = Math.max(o.minThreshold, reference - o.delta);
  if (n === 0) return { labels: [], k: 0, reference, threshold };
  const minK = Math.min(n, o.speakers ?? o.minSpeakers ?? 1);
  const maxK = Math.min(n, o.speakers ?? o.maxSpeakers ?? n);
  const idx = n <= o.maxPoints ? points.map((_, i) => i) : Array.from({ length: o.maxPoints }, (_, i) => Math.floor((i * n) / o.maxPoints));
  const sub = idx.map((i) => points[i]!);
  let { labels, k } = compactLabels(agglomerateTo(sub, threshold, minK, maxK));
  if (o.speakers === undefined) ({ labels, k } = foldSmall(sub, labels, Math.max(o.minWindows, o.minShare * sub.length), minK));
  if (o.speakers === undefined && o.regionOf) ({ labels, k } = foldSingleTurn(sub, labels, idx.map((i) => o.regionOf![i]!), minK));
  if (sub.length < n) {
    const cents = centroids(sub, labels, k);
    ({ labels, k } = compactLabels(points.map((p) => nearestOf(p, cents))));
  }
  return { labels, k, reference, threshold };
}
