/** Builds the transcript document (TranscriptDocument in src/types.ts; docs/service.md, "Results") of one file from the transcriber's result. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PACKAGE_ROOT } from '../config.js';
import { appliedRedaction } from '../redact/kinds.js';
import type { FileWork, Stage, TranscriptDocument, Utterance } from '../types.js';

export const VOXDEX_VERSION: string = (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version;

export type DocumentInput = Pick<FileWork, 'requestid' | 'source' | 'started' | 'metadata' | 'warnings' | 'result'> & Partial<Pick<FileWork, 'summary' | 'options'>>;

const ms = (x: number) => Math.round(x * 1000) / 1000;

/** One utterance as the document (and a live call's `utterance` message) carries it. */
export function documentUtterance(u: Utterance, source: string, model: string): Utterance {
  return {
    ...u,
    start: ms(u.start),
    end: ms(u.end),
    metadata: { ...u.metadata, source: u.metadata.source ?? source, model: u.metadata.model ?? model },
    // The ASR's written forms end at the readable stage; a path without it keeps none either.
    events: u.events.map(({ written: _w, ...e }) => ({ ...e, start: ms(e.start), end: ms(e.end) })),
  };
}

export function buildDocument(input: DocumentInput): TranscriptDocument {
  const r = input.result;
  const utterances = [...r.utterances]
    .sort((a, b) => a.start - b.start || a.metadata.channel - b.metadata.channel)
    .map((u) => documentUtterance(u, input.source, r.model));
  const doc: TranscriptDocument = {
    asr: `voxdex ${VOXDEX_VERSION}`,
    model: r.model,
    confidence: r.confidence,
    audiosecs: ms(r.audiosecs),
    nchannels: r.nchannels,
    started: input.started,
    donedate: new Date().toISOString(),
    requestid: input.requestid,
    source: input.source,
    chaninfo: r.chaninfo,
    utterances,
    ...input.summary,
  };
  const redaction = input.options && appliedRedaction(input.options);
  if (redaction) doc.redaction = redaction;
  if (input.metadata && Object.keys(input.metadata).length > 0) doc.streamtags = { metadata: input.metadata };
  if (input.warnings.length > 0) doc.warning = input.warnings.join('; ');
  return doc;
}

/** The last step of one file's pipeline: its work, after the stage table (src/pipeline/stage-table.ts), as the transcript document. */
export const documentStage: Stage<FileWork, TranscriptDocument> = async (work) => buildDocument(work);
