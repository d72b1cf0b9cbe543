/**
 * The conformance corpus: small hand-written transcripts with known word times, so that every
 * expected result in the conformance suite can be worked out by reading this file.
 * Word i of utterance u on channel c starts at 10·u + 0.25·c + 0.5·i seconds and lasts 0.4 s.
 */
import type { TranscriptDocument } from '../../src/types.js';
import type { IndexedTranscript } from '../../src/search/transcript-index.js';

export interface DocSpec {
  tid: string;
  scope?: [company: string, org: string, folder: string];
  datetime: string;
  duration: number;
  confidence?: number;
  model: string;
  source: string;
  requestid: string;
  metadata: Record<string, unknown>;
  /** Per channel, its utterances as plain text. */
  channels: string[][];
}

export function wordStart(channel: number, utt: number, i: number): number {
  return Math.round((10 * utt + 0.25 * channel + 0.5 * i) * 1000) / 1000;
}

export function makeDocument(spec: DocSpec): TranscriptDocument {
  const utterances = spec.channels.flatMap((utts, channel) =>
    utts.map((text, u) => {
      const events = text.split(' ').map((word, i) => ({
        word,
        start: wordStart(channel, u, i),
        end: Math.round((wordStart(channel, u, i) + 0.4) * 1000) / 1000,
        confidence: 0.9,
      }));
      return {
        start: events[0]!.start,
        end: events[events.length - 1]!.end,
        confidence: 0.9,
        metadata: { channel, uttid: u, source: spec.source, model: spec.model },
        events,
      };
    }),
  );
  utterances.sort((a, b) => a.start - b.start);
  const doc: TranscriptDocument = {
    asr: 'voxdex 0.1.0',
    model: spec.model,
    audiosecs: spec.duration,
    nchannels: spec.channels.length,
    requestid: spec.requestid,
    source: spec.source,
    streamtags: { metadata: spec.metadata },
    chaninfo: spec.channels.map((_, channel) => ({ channel, audiosecs: spec.duration, speechsecs: spec.duration / 2 })),
    utterances,
  };
  if (spec.confidence !== undefined) doc.confidence = spec.confidence;
  return doc;
}

export function makeTranscript(spec: DocSpec): IndexedTranscript {
  const [company, org, folder] = spec.scope ?? ['acme', 'sales', 'f1'];
  return { tid: spec.tid, company, org, folder, datetime: spec.datetime, document: makeDocument(spec) };
}

const base = { model: 'en-us-8k' };

export const SPECS: DocSpec[] = [
  { ...base, tid: 't01', datetime: '2024-03-01T10:00:00Z', duration: 61.5, confidence: 0.91, source: 'call-01.wav', requestid: 'req-1',
    metadata: { agent: 'alice', queue: 'billing' },
    channels: [['hello thank you for calling acme support', 'how can i help you today'], ['hi i want to cancel my subscription', 'the refund never arrived']] },
  { ...base, tid: 't02', datetime: '2024-03-02T09:30:00Z', duration: 30, confidence: 0.82, source: 'call-02.wav', requestid: 'req-2',
    metadata: { agent: 'bob', note: 'said "hi", then left,\nangry' },
    channels: [['good morning you reached acme billing'], ['i need a refund please', 'cancel the order']] },
  { tid: 't03', datetime: '2024-03-03T14:00:00Z', duration: 120, model: 'en-us-16k', source: 'call-03.wav', requestid: 'req-3',
    metadata: { agent: 'alice', vip: true },
    channels: [['please hold while i transfer your call', 'thank you for holding']] },
  { ...base, tid: 't04', datetime: '2024-03-04T08:00:00Z', duration: 45, confidence: 0.75, source: 'call-04.wav', requestid: 'req-4',
    metadata: { agent: 'carol' },
    channels: [['we value your subscription'], ['i want to cancel', 'my subscription now']] },
  { ...base, tid: 't05', datetime: '2024-03-05T11:00:00Z', duration: 45, confidence: 0.75, source: 'call-05.wav', requestid: 'req-5',
    metadata: { agent: 'dave' },
    channels: [['please say cancel'], ['my subscription is active']] },
  { ...base, tid: 't06', scope: ['acme', 'sales', 'f2'], datetime: '2024-04-01T10:00:00Z', duration: 20, confidence: 0.6, source: 'call-06.wav',
    requestid: 'req-6', metadata: { agent: 'bob' }, channels: [['refund request for the order']] },
  { ...base, tid: 't07', scope: ['other', 'sales', 'f1'], datetime: '2024-03-01T12:00:00Z', duration: 10, confidence: 0.7, source: 'call-07.wav',
    requestid: 'req-7', metadata: { agent: 'zed' }, channels: [['cancel my subscription refund']] },
  { ...base, tid: 't08', scope: ['acme', 'support', 'f1'], datetime: '2024-03-01T13:00:00Z', duration: 10, confidence: 0.7, source: 'call-08.wav',
    requestid: 'req-8', metadata: { agent: 'yan' }, channels: [['cancel my subscription refund']] },
  { tid: 't09', datetime: '2024-03-09T10:00:00Z', duration: 15, confidence: 0.95, model: 'en-us-16k', source: 'call-09.wav', requestid: 'req-9',
    metadata: { agent: 'erin' }, channels: [['the colour and the color of the collar']] },
  { ...base, tid: 't10', datetime: '2024-03-10T10:00:00Z', duration: 90, confidence: 0.88, source: 'call-10.wav', requestid: 'req-10',
    metadata: { agent: 'alice' }, channels: [['your refund for the canceled order was processed'], ['Thank You']] },
];

export const CORPUS: IndexedTranscript[] = SPECS.map(makeTranscript);
