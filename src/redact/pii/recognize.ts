/**
 * Personal data beyond digit runs (docs/pii.md): the kinds, and the view the word-level recognizers
 * (listed in registry.ts) share over the call's streams (digit-runs.ts `buildStreams`): the cues and
 * windows of context.ts and the person tags. Pure and synchronous; a partial call gives the view so far.
 */
import type { Utterance } from '../../types.js';
import type { Stream } from '../digit-runs.js';
import { findCues, findWindows, type PiiKind } from './context.js';
import { personTags, type PersonTags } from './person-tags.js';
import type { PiiView } from './spans.js';

export const PII_KINDS: readonly PiiKind[] = ['bank', 'phone', 'email', 'name', 'address', 'dob', 'id'];

/** The view the recognizers share: cues, windows, and the person tags computed per stream on first use. */
export function piiView(utterances: readonly Utterance[], streams: readonly Stream[], channels = streams.length): PiiView {
  const cues = findCues(streams);
  const tags = new Map<Stream, PersonTags>();
  const tagsOf = (s: Stream) => {
    let x = tags.get(s);
    if (!x) tags.set(s, (x = personTags(s)));
    return x;
  };
  return { utterances, streams, cues, windows: findWindows(streams, cues, channels), persons: (s) => tagsOf(s).persons, unknown: (s) => tagsOf(s).unknown };
}
