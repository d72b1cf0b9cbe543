/**
 * A company's redaction policy at the moment a transcript is written (docs/redaction.md, "A policy
 * set while a request runs"). A job reads the policy when it starts (JobRunner); one set while it
 * runs — mid-ASR — reaches it here, when its transcript is written: the document is redacted again
 * with the policy as it is now (text, kinds, the client's file name and metadata, the spans the kept
 * audio is silenced over). And every write of a transcript is checked: for a company under a text
 * policy, a document that redaction with the policy's kinds would still change is refused
 * (UNREDACTED_WRITE) and nothing is written.
 */
import type { CompanySettings, RequestOptions, TranscriptDocument } from '../types.js';
import { voxdexError } from '../errors.js';
import { clientTextOf, policyKinds } from './client-policy.js';
import { appliedRedaction } from './kinds.js';
import { redactUtterances, type RedactionSpan } from './redact.js';
import { redactDocument } from './stage.js';

/** The company's settings as they are now (tenancy), or undefined for a company that no longer exists. */
export type SettingsNow = (company: string) => CompanySettings | undefined;

/** What the write path asks of the policy as it is now (the job runner answers from tenancy). */
export interface PolicyNow {
  /** The job's options under the company's policy now (src/jobs/request-options.ts policyFloor). */
  optionsNow(ran: RequestOptions, company: string): RequestOptions;
  settings: SettingsNow;
}

export interface AtWrite {
  document: TranscriptDocument;
  /** The options the document is now redacted under (the job's, or stricter). */
  options: RequestOptions;
  /** Spans found by the redaction at write time (for the kept audio under scrubaudio); empty when nothing was redone. */
  spans: RedactionSpan[];
}

/** Whether `now` asks for more than `ran` did: text or audio redaction turned on, or more kinds. */
function stricter(now: RequestOptions, ran: RequestOptions): boolean {
  return (now.scrubtext && !ran.scrubtext) || (now.scrubaudio && !ran.scrubaudio) || now.redact.some((k) => !ran.redact.includes(k));
}

/** The document as the options under the policy now (`now`) want it, given the options the job ran with. */
export function redactAtWrite(document: TranscriptDocument, ran: RequestOptions, now: RequestOptions): AtWrite {
  if (!stricter(now, ran)) return { document, options: ran, spans: [] };
  const redacted = redactDocument(document, now);
  const client = clientTextOf(now);
  const metadata = client.metadata(document.streamtags?.metadata);
  return {
    document: {
      ...redacted.document,
      source: client.text(document.source),
      ...(document.streamtags ? { streamtags: { ...document.streamtags, metadata } } : {}),
      // The result says the kinds it is now redacted with (docs/redaction.md, "Kinds").
      redaction: appliedRedaction(now),
    },
    options: now,
    spans: redacted.spans,
  };
}

/**
 * UNREDACTED_WRITE when `company` is under a text policy and the document (its words, its file name,
 * its metadata) is not redacted with the policy's kinds. Says how many spans, never which words.
 */
export function refuseUnredacted(company: string, document: TranscriptDocument, settings: CompanySettings | undefined): void {
  if (!settings?.scrub?.includes('text')) return;
  const kinds = policyKinds(settings);
  const spans = redactUtterances(document.utterances, kinds).spans.length;
  const client = clientTextOf({ scrubtext: true, scrubaudio: false, redact: [...kinds] });
  const names = client.text(document.source) !== document.source ? 1 : 0;
  const metadata = document.streamtags?.metadata;
  const fields = metadata !== undefined && JSON.stringify(client.metadata(metadata)) !== JSON.stringify(metadata) ? 1 : 0;
  if (spans + names + fields === 0) return;
  throw voxdexError(
    'UNREDACTED_WRITE',
    `A transcript of company ${company} was refused: its text policy redacts ${kinds.join(', ')}, and it still held ${spans} unredacted span(s), ${names} file name(s) and ${fields} metadata object(s). Nothing was written; the request is retried under the policy.`,
  );
}
