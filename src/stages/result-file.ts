/**
 * A request's result file: one audio file → its transcript in the requested output; an archive → a
 * zip of `<member minus audio extension>.json|.txt` per finished member, plus `errors.json`
 * ([{file, error:{code,message}}]) when some members failed. Rendered to bytes; the caller stores them
 * (BlobStore.put: durable and atomic).
 */
import yazl from 'yazl';
import type { ErrorInfo } from '../errors.js';
import { outputExtension, renderTranscript } from '../render/output.js';
import type { OutputFormat, TranscriptDocument } from '../types.js';

export interface MemberOutcome {
  member: string;
  document?: TranscriptDocument;
  error?: ErrorInfo;
}

export function resultExtension(kind: 'audio' | 'archive', output: OutputFormat): string {
  return kind === 'archive' ? 'zip' : outputExtension(output);
}

/** The extensions of the formats voxdex accepts (transcoded ones included), dropped from entry names. */
const AUDIO_EXTENSION = /\.(wav|wave|mp3|flac|ogg|oga|opus|spx|m4a|mp4|aac|amr|awb|3gp|webm|mka|aif|aiff|aifc|au|snd|caf)$/i;

/** Zip entry name of a member's transcript. */
export function memberEntryName(member: string, output: OutputFormat): string {
  const base = member.replace(AUDIO_EXTENSION, '');
  return `${base}.${outputExtension(output)}`;
}

export async function renderResultFile(kind: 'audio' | 'archive', output: OutputFormat, outcomes: MemberOutcome[]): Promise<Buffer> {
  if (kind === 'audio') {
    const doc = outcomes[0]?.document;
    if (!doc) throw new Error('renderResultFile: the single file has no transcript');
    return Buffer.from(renderTranscript(doc, output));
  }
  const zip = new yazl.ZipFile();
  const used = new Set<string>();
  for (const o of outcomes) {
    if (!o.document) continue;
    let name = memberEntryName(o.member, output);
    for (let n = 2; used.has(name); n++) name = memberEntryName(`${o.member}-${n}`, output);
    used.add(name);
    zip.addBuffer(Buffer.from(renderTranscript(o.document, output)), name);
  }
  const errors = outcomes.filter((o) => o.error).map((o) => ({ file: o.member, error: o.error }));
  if (errors.length > 0) zip.addBuffer(Buffer.from(JSON.stringify(errors, null, 2)), 'errors.json');
  zip.end();
  const chunks: Buffer[] = [];
  for await (const c of zip.outputStream) chunks.push(c as Buffer);
  return Buffer.concat(chunks);
}
