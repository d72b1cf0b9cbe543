/**
 * Step 4 of diarization, resegmentation: the clusters' centroids are the speaker models, and the windows
 * are labelled again in time order by Viterbi decoding — each window scores its cosine to each centroid,
 * changing speaker costs `penalty` inside a speech region and only `pausePenalty` across a pause (where
 * turns change, and where a back-channel "yeah" between two pauses keeps its own voice). Two passes,
 * centroids recomputed between them. Pure.
 */
import { centroids, dot } from './cluster.js';
import { compactLabels } from './ahc.js';

export interface ResegmentOptions {
  penalty: number;
  pausePenalty: number;
  passes: number;
}

export const RESEGMENT_DEFAULTS: Readonly<ResegmentOptions> = Object.freeze({ penalty: 0.1, pausePenalty: 0.02, passes: 2 });

/** Viterbi path over `scores[t][k]` with a switch cost per step (`switchCost[t]`: from t−1 to t). */
export function viterbi(scores: number[][], switchCost: number[]): number[] {
  const T = scores.length;
  if (T === 0) return [];
  const K = scores[0]!.length;
  let acc = [...scores[0]!];
  const back: Int32Array[] = [];
  for (let t = 1; t < T; t++) {
    const b = new Int32Array(K);
    const next = new Array<number>(K);
    let top = 0;
    for (let j = 1; j < K; j++) if (acc[j]! > acc[top]!) top = j;
    for (let k = 0; k < K; k++) {
      const stay = acc[k]!;
      const move = acc[top]! - switchCost[t]!;
      [next[k], b[k]] = stay >= move || top === k ? [stay, k] : [move, top];
      next[k]! += scores[t]![k]!;
    }
    back.push(b);
    acc = next;
  }
  let k = 0;
  for (let j = 1; j < K; j++) if (acc[j]! > acc[k]!) k = j;
  const path = new Array<number>(T);
  path[T - 1] = k;
  for (let t = T - 1; t > 0; t--) path[t - 1] = k = back[t - 1]![k]!;
  return path;
}

/** Labels of every window after resegmentation; `newRegion[t]`: window t starts a new speech region. */
export function resegment(points: Float32Array[], labels: number[], k: number, newRegion: boolean[], opts: Partial<ResegmentOptions> = {}): { labels: number[]; k: number } {
  const o = { ...RESEGMENT_DEFAULTS, ...opts };
  if (k < 2 || points.length === 0) return { labels, k };
  const cost = newRegion.map((b) => (b ? o.pausePenalty : o.penalty));
  let cur = { labels, k };
  for (let p = 0; p < o.passes && cur.k > 1; p++) {
    const cents = centroids(points, cur.labels, cur.k);
    cur = compactLabels(viterbi(points.map((e) => cents.map((c) => dot(e, c))), cost));
  }
  return cur;
}
