/**
 * Context over time: every topic word said in the call ("card number", "security code", "what is
 * your pin", "the three digits on the back") and the ANSWER WINDOW each opens — the time in which
 * digits on the other channels are taken as the answer, and on the speaker's own channel too when they
 * give their own number ("my card number is …") or the call has one channel.
 * A window stays open while a channel goes on giving digit groups (long pauses, chatter and
 * misheard groups between them), until another topic is raised. Pure functions of the transcript
 * so far: what a live caller re-runs on each new utterance.
 */
import { digitGroups, type RunHints, type Stream } from './digit-runs.js';
import { contextTag, type ContextTag } from './recognizers.js';

export interface Topic {
  tag: ContextTag;
  /** When the topic word was said. */
  time: number;
  /** The stream (`C<channel>`) that said it. */
  stream: string;
  key: string;
  /** Said of the speaker's own number ("my card number is", "the pin is"): the window is on their own channel too. */
  own: boolean;
}

export interface AnswerWindow extends Topic {
  /** Per stream: when the window closes for that stream's words (extended by its digit groups). */
  ends: ReadonlyMap<string, number>;
}

/** Seconds after a question in which the first digits answer it ("…let me find my card…"). */
export const ANSWER_WINDOW_SEC = 30;
/** Seconds after each digit group of an answer in which the next group still belongs to it (a card read in four groups 25 s apart). */
export const ANSWER_CONTINUE_SEC = 30;
/** A different topic this soon after one ("card number and expiry") does not close its window. */
const TOPIC_OVERLAP_SEC = 3;

const OWN_BEFORE = new Set(['my', 'our', 'mine']);
const OWN_AFTER = new Set(['is', 'are', 'was', "it's", 'its']);

/** The topic word at i speaks of the speaker's own number: "my card number", "card number is", "the pin is". */
function ownNumber(keys: readonly string[], i: number): boolean {
  return [keys[i - 1], keys[i - 2]].some((k) => k !== undefined && OWN_BEFORE.has(k)) || [keys[i + 1], keys[i + 2]].some((k) => k !== undefined && OWN_AFTER.has(k));
}

/** Every topic word said anywhere in the call, in time order. */
export function topics(streams: readonly Stream[]): Topic[] {
  const out: Topic[] = [];
  for (const s of streams) {
    const keys = s.tokens.map((t) => t.key);
    s.tokens.forEach((t, i) => {
      const tag = contextTag(keys, i);
      if (tag) out.push({ tag, time: t.start, stream: s.speaker, key: t.key, own: ownNumber(keys, i) });
    });
  }
  return out.sort((a, b) => a.time - b.time);
}

/**
 * Whether a topic's answer window is on a stream: a question's on the other channels ("what is your
 * pin"), one's own number's on every channel ("my card number is": said, and maybe read back), any
 * topic's on a one-channel call. (The code rules of recognizers.ts — the latest topic and 3–4 digits —
 * read every channel: an agent reading the code back is redacted too.)
 */
export function bearsOn(t: Topic, stream: string, channels: number): boolean {
  return channels === 1 || stream !== t.stream || t.own;
}

/** "number" names no topic of its own: it neither closes a window nor splits the speaker's own number. */
const generic = (t: Topic) => t.key === 'number';

/**
 * Each topic's window: open from the topic word for ANSWER_WINDOW_SEC, then for each stream as long
 * as that stream's digit groups keep coming within ANSWER_CONTINUE_SEC of each other; closed by the
 * next other (non-generic) topic on any channel; on the channels bearsOn names (the agent's "the offer
 * ends in 1999" after asking for the card is no answer). `channels`: how many the call has spoken on
 * (more than `streams` holds when they are part of a call: the live engine's context).
 */
export function answerWindows(list: readonly Topic[], streams: readonly Stream[], channels = streams.length): AnswerWindow[] {
  const groups = new Map(streams.map((s) => [s.speaker, digitGroups(s).map((g) => ({ start: s.tokens[g.first]!.start, end: s.tokens[g.last]!.end }))]));
  return list.map((t, i) => {
    const next = list.slice(i + 1).find((o) => o.tag !== t.tag && !generic(o) && o.time > t.time + TOPIC_OVERLAP_SEC);
    const cap = next?.time ?? Infinity;
    const ends = new Map<string, number>();
    for (const [stream, gs] of groups) {
      if (!bearsOn(t, stream, channels)) continue;
      let end = Math.min(t.time + ANSWER_WINDOW_SEC, cap);
      for (const g of gs) {
        if (g.start < t.time) continue;
        if (g.start >= end) break;
        end = Math.min(cap, Math.max(end, g.end + ANSWER_CONTINUE_SEC));
      }
      ends.set(stream, end);
    }
    return { ...t, ends };
  });
}

export interface WindowHints extends RunHints {
  /** The window `stream`'s word at `time` answers, with when it closes for that stream. */
  answered(stream: string, time: number): { window: AnswerWindow; end: number } | undefined;
}

/** What digit-runs.ts and the recognizers ask of the context. */
export function windowHints(list: readonly Topic[], windows: readonly AnswerWindow[]): WindowHints {
  const answered = (stream: string, time: number) => {
    let best: AnswerWindow | undefined;
    for (const w of windows) {
      if (time < w.time || time >= (w.ends.get(stream) ?? w.time)) continue;
      // A named topic wins over "number"/"phone"; among equals, the latest question.
      if (!best || (best.tag === 'other' && w.tag !== 'other') || (w.time >= best.time && (w.tag !== 'other' || best.tag === 'other'))) best = w;
    }
    return best && { window: best, end: best.ends.get(stream)! };
  };
  return {
    answered,
    window: (stream, time) => {
      const a = answered(stream, time);
      return a ? windows.indexOf(a.window) : undefined;
    },
    // A topic raised between two groups starts a new number; the speaker's own "…the rest of the number is…" does not.
    breaks: (stream, from, to) => list.some((t) => t.time > from && t.time < to && !(generic(t) && t.stream === stream)),
  };
}
