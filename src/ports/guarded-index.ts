/**
 * The transcript index as every node uses it: each write is checked against the company's text
 * policy as it is at that moment (src/redact/at-write.ts refuseUnredacted), whichever adapter is
 * underneath (SQLite or Elasticsearch) and whoever writes (a job, `voxdex redact`).
 */
import { refuseUnredacted, type SettingsNow } from '../redact/at-write.js';
import type { TranscriptIndex } from '../search/transcript-index.js';

export function policyGuardedIndex(index: TranscriptIndex, settingsNow: SettingsNow): TranscriptIndex {
  const guarded: TranscriptIndex['index'] = async (docs) => {
    for (const d of docs) refuseUnredacted(d.company, d.document, settingsNow(d.company));
    return index.index(docs);
  };
  return new Proxy(index, {
    get(target, prop) {
      if (prop === 'index') return guarded;
      const v = Reflect.get(target, prop, target) as unknown;
      return typeof v === 'function' ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}
