/**
 * Step 3 of diarization: clustering window embeddings into speakers, with the number of speakers
 * estimated or given. Pure (Float32Array math).
 *
 * Average-linkage agglomerative clustering on cosine similarity gives a candidate partition for every
 * k (at most `maxSpeakers`), on window embeddings smoothed with their like neighbours; each is refined
 * by a few spherical k-means passes; chooseK picks the number of speakers from the silhouettes and the
 * centroid similarities (thresholds tuned on real-voice calls of prompts a–l, bench/diarization.ts).
 * Clusters holding fewer than `minShare` of the windows (overlap, noise, laughter) are folded into their
 * nearest neighbour.
 */

export interface ClusterOptions {
  /** The number of speakers when known (`speakers=N`). */
  speakers?: number;
  maxSpeakers: number;
  /** A two-way split counts as two speakers when silhouette + (0.92 − centroid similarity) reaches this. */
  minSplitScore: number;
  /** A further split is kept only while every pair of centroids is less similar than this. */
  maxSimilarity: number;
  /** … and its silhouette is at most this much below the previous one's. */
  maxSilhouetteDrop: number;
  /** Neighbouring windows at least this similar are averaged (smoothNeighbours). */
  smoothGate: number;
  /** Clusters with fewer windows than this share are folded into the nearest one (when k is estimated). */
  minShare: number;
  /** At most this many windows go into the agglomerative step; the rest join their nearest centroid. */
  maxPoints: number;
}

export const CLUSTER_DEFAULTS: Readonly<ClusterOptions> = Object.freeze({
  maxSpeakers: 6,
  minSplitScore: 0.37,
  maxSimilarity: 0.87,
  maxSilhouetteDrop: 0.05,
  smoothGate: 0.75,
  minShare: 0.06,
  maxPoints: 320,
});

export interface Clustering {
  /** Cluster of each window, 0..k-1. */
  labels: number[];
  k: number;
  /** Mean silhouette of the chosen partition (0 for one cluster). */
  silhouette: number;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let d = 0;
  for (let i = 0; i < a.length; i++) d += a[i]! * b[i]!;
  return d;
}

function unit(v: Float32Array): Float32Array {
  const n = Math.sqrt(dot(v, v)) || 1;
  return v.map((x) => x / n);
}

/** Unit centroids of the labelled points. */
export function centroids(points: Float32Array[], labels: number[], k: number): Float32Array[] {
  const dim = points[0]?.length ?? 0;
  const sums = Array.from({ length: k }, () => new Float32Array(dim));
  points.forEach((p, i) => {
    const s = sums[labels[i]!]!;
    for (let j = 0; j < dim; j++) s[j]! += p[j]!;
  });
  return sums.map(unit);
}

function nearest(p: Float32Array, cents: Float32Array[]): number {
  let best = 0;
  let bestSim = -Infinity;
  cents.forEach((c, j) => {
    const s = dot(p, c);
    if (s > bestSim) [best, bestSim] = [j, s];
  });
  return best;
}

/** Relabels 0..k-1 in order of first appearance, dropping empty clusters. */
function compact(labels: number[]): { labels: number[]; k: number } {
  const map = new Map<number, number>();
  const out = labels.map((l) => {
    if (!map.has(l)) map.set(l, map.size);
    return map.get(l)!;
  });
  return { labels: out, k: map.size };
}

/**
 * Average-linkage agglomeration (cosine similarity), from every point alone down to one cluster.
 * Returns the partition at each k from `maxK` down to 1 (index k).
 */
export function agglomerate(points: Float32Array[], maxK: number): number[][] {
  const n = points.length;
  const sim = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) sim[i * n + j] = sim[j * n + i] = dot(points[i]!, points[j]!);
  const size = new Array<number>(n).fill(1);
  const alive = new Array<boolean>(n).fill(true);
  const owner = Array.from({ length: n }, (_, i) => i);
  const parts: number[][] = [];
  let clusters = n;
  const snapshot = () => {
    parts[clusters] = compact(owner.map((o) => find(o))).labels;
  };
  const parent = Array.from({ length: n }, (_, i) => i);
  const find = (x: number): number => (parent[x] === x ? x : (parent[x] = find(parent[x]!)));
  if (clusters <= maxK) snapshot();
  while (clusters > 1) {
    let bi = -1;
    let bj = -1;
    let best = -Infinity;
    for (let i = 0; i < n; i++) {
      if (!alive[i]) continue;
      for (let j = i + 1; j < n; j++) {
        if (!alive[j]) continue;
        const s = sim[i * n + j]!;
        if (s > best) [best, bi, bj] = [s, i, j];
      }
    }
    // merge bj into bi (Lance–Williams, average linkage)
    for (let m = 0; m < n; m++) {
      if (!alive[m] || m === bi || m === bj) continue;
      const s = (size[bi]! * sim[bi * n + m]! + size[bj]! * sim[bj * n + m]!) / (size[bi]! + size[bj]!);
      sim[bi * n + m] = sim[m * n + bi] = s;
    }
    size[bi]! += size[bj]!;
    alive[bj] = false;
    parent[bj] = bi;
    clusters--;
    if (clusters <= maxK) snapshot();
  }
  return parts;
}

/** Spherical k-means passes from a starting partition (stops when stable). */
export function refine(points: Float32Array[], labels: number[], k: number, passes = 5): number[] {
  let cur = labels;
  for (let p = 0; p < passes; p++) {
    const cents = centroids(points, cur, k);
    const next = points.map((x) => nearest(x, cents));
    if (next.every((l, i) => l === cur[i])) break;
    cur = next;
  }
  return cur;
}

/** Mean silhouette with cosine distance (1 − similarity); 0 for a single cluster. */
export function silhouette(points: Float32Array[], labels: number[], k: number): number {
  if (k < 2) return 0;
  const n = points.length;
  let total = 0;
  for (let i = 0; i < n; i++) {
    const sum = new Float64Array(k);
    const cnt = new Float64Array(k);
    for (let j = 0; j < n; j++) {
      if (j === i) continue;
      sum[labels[j]!]! += 1 - dot(points[i]!, points[j]!);
      cnt[labels[j]!]!++;
    }
    const own = labels[i]!;
    if (cnt[own] === 0) continue; // a singleton scores 0
    const a = sum[own]! / cnt[own]!;
    let b = Infinity;
    for (let c = 0; c < k; c++) if (c !== own && cnt[c]! > 0) b = Math.min(b, sum[c]! / cnt[c]!);
    if (Number.isFinite(b)) total += (b - a) / Math.max(a, b);
  }
  return total / n;
}

/** Folds clusters smaller than `minShare` of the points into their nearest large cluster. */
function foldSmall(points: Float32Array[], labels: number[], k: number, minShare: number): { labels: number[]; k: number } {
  const counts = new Array<number>(k).fill(0);
  for (const l of labels) counts[l]!++;
  const big = counts.map((c) => c >= Math.max(2, minShare * labels.length));
  if (big.every(Boolean) || !big.some(Boolean)) return { labels, k };
  const cents = centroids(points, labels, k);
  const keep = cents.filter((_, c) => big[c]);
  const keepIdx = cents.map((_, c) => c).filter((c) => big[c]);
  const out = labels.map((l, i) => (big[l] ? keepIdx.indexOf(l) : nearest(points[i]!, keep)));
  return compact(refine(points, out, keep.length));
}

/** Evenly spaced indexes, at most `max` of `n`. */
function sample(n: number, max: number): number[] {
  if (n <= max) return Array.from({ length: n }, (_, i) => i);
  return Array.from({ length: max }, (_, i) => Math.floor((i * n) / max));
}

/**
 * Each window averaged with its neighbours (one each side) that are alike (cosine above `gate`): 3 s of
 * context inside a turn, none across a change of voice. Tightens a speaker's windows, which makes the
 * silhouette of a false split fall and that of a true one rise.
 */
export function smoothNeighbours(points: Float32Array[], gate: number): Float32Array[] {
  return points.map((p, i) => {
    const acc = new Float32Array(p);
    for (const q of [points[i - 1], points[i + 1]]) if (q && dot(p, q) > gate) for (let j = 0; j < acc.length; j++) acc[j]! += q[j]!;
    return unit(acc);
  });
}

function closestPair(points: Float32Array[], c: Clustering): number {
  const cents = centroids(points, c.labels, c.k);
  let closest = -1;
  for (let a = 0; a < cents.length; a++) for (let b = a + 1; b < cents.length; b++) closest = Math.max(closest, dot(cents[a]!, cents[b]!));
  return closest;
}

/**
 * The number of speakers: two when the best two-way split scores silhouette + (0.92 − closest centroid
 * similarity) ≥ `minSplitScore`; then one more while the next split keeps its centroids apart (closest <
 * `maxSimilarity`) and its silhouette within `maxSilhouetteDrop` of the previous. undefined: one speaker.
 */
function chooseK(points: Float32Array[], candidates: Clustering[], o: ClusterOptions): Clustering | undefined {
  const byK = new Map<number, Clustering>();
  for (const c of candidates) if (!byK.has(c.k) || c.silhouette > byK.get(c.k)!.silhouette) byK.set(c.k, c);
  const two = byK.get(2);
  if (!two || two.silhouette + (0.92 - closestPair(points, two)) < o.minSplitScore) return undefined;
  let best = two;
  for (let k = 3; byK.has(k); k++) {
    const next = byK.get(k)!;
    if (closestPair(points, next) >= o.maxSimilarity || next.silhouette < best.silhouette - o.maxSilhouetteDrop) break;
    best = next;
  }
  return best;
}

export function clusterEmbeddings(points: Float32Array[], opts: Partial<ClusterOptions> = {}): Clustering {
  const o = { ...CLUSTER_DEFAULTS, ...opts };
  const n = points.length;
  if (n === 0) return { labels: [], k: 0, silhouette: 0 };
  const fixed = o.speakers !== undefined ? Math.min(o.speakers, n) : undefined;
  const maxK = Math.min(fixed ?? o.maxSpeakers, n);
  if (maxK <= 1) return { labels: new Array<number>(n).fill(0), k: 1, silhouette: 0 };
  const idx = sample(n, o.maxPoints);
  const smoothed = smoothNeighbours(points, o.smoothGate);
  const sub = idx.map((i) => smoothed[i]!);
  const parts = agglomerate(sub, maxK);
  const candidates: Clustering[] = [];
  for (let k = fixed ?? 2; k <= maxK; k++) {
    const start = parts[k];
    if (!start) continue;
    let { labels: l, k: kk } = compact(refine(sub, start, k));
    if (fixed === undefined) ({ labels: l, k: kk } = foldSmall(sub, l, kk, o.minShare));
    if (kk < 2 && fixed === undefined) continue;
    candidates.push({ labels: l, k: kk, silhouette: silhouette(sub, l, kk) });
  }
  const best = fixed !== undefined ? candidates[0] : chooseK(sub, candidates, o);
  if (!best) return { labels: new Array<number>(n).fill(0), k: 1, silhouette: 0 };
  // every window joins its nearest centroid of the chosen partition, then a final refinement over all windows
  const cents = centroids(sub, best.labels, best.k);
  const refined = refine(smoothed, smoothed.map((p) => nearest(p, cents)), best.k);
  // labels from each window's own embedding against the speakers' centroids: sharper at turn changes than the smoothed ones
  const finalCents = centroids(smoothed, refined, best.k);
  const all = compact(points.map((p) => nearest(p, finalCents)));
  return { labels: all.labels, k: all.k, silhouette: best.silhouette };
}
