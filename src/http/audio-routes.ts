/**
 * The stored recording of a request, as a browser-playable 16-bit PCM WAV converted on the fly
 * (src/audio/wav-stream.ts), with HTTP range requests (docs/ui.md, "Audio"):
 *
 *   GET /transcribe/{requestid}/audio?token&file&channel          → 200 JSON string: a signed link
 *   GET /transcribe/{requestid}/audio?token&file&channel&inline=true → the audio itself
 *   GET|HEAD /transcribe/download/{requestid}/audio?file&channel&expires&sig → the audio (no token)
 *
 * The signed link is how an <audio> element plays it: the element cannot send a header, and the
 * token must not be in a URL. `file` names an archive member (single-file requests: optional);
 * `channel` is `all` (default: as recorded), `mix` (mono mean of all) or a channel number.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { openPlayableWav, PLAYABLE_HEADER_BYTES, type ChannelSelection } from '../audio/wav-stream.js';
import type { ByteSource } from '../audio/byte-source.js';
import { blobKeys, type BlobStore, type LocalCopy } from '../blobs/blob-store.js';
import type { AudioSeal } from '../audio/sealed-file.js';
import { VoxdexError, voxdexError } from '../errors.js';
import { invalidParameter, isUuid, parseInteger } from '../is.js';
import { shownJob } from '../jobs/shown-job.js';
import type { Job, JobStore } from '../store/job-store.js';
import type { Tenancy } from '../tenancy/tenancy.js';
import { whoOf, type AuditTrail } from './audit-trail.js';
import type { Access } from './auth.js';
import { requestToken } from './bearer.js';
import { checkParamNames, readFields } from './upload-form.js';
import { linkOrigin } from './public-url.js';
import { queryValue, sendJson, type Req, type Res, type RouteTable } from './server.js';

export interface AudioRouteDeps {
  access: Access;
  /** The audit trail: a signed link's plays are written as the person who asked for the link. */
  trail: AuditTrail;
  store: JobStore;
  /** Where the recordings are: the upload, and archive members' audio kept for playback. */
  blobs: BlobStore;
  /** The installation's key for audio at rest: every stored recording is sealed. */
  seal: AudioSeal;
  /** The company's policy (a job not finished yet runs under it: its upload is never served). */
  tenancy: Pick<Tenancy, 'companySettings' | 'hasCompany'>;
  /** Where a blob from object storage is copied to be read (the local store reads its own file). */
  scratchDir: string;
  /** HMAC key of signed links (the one of result links; audio links sign a different message). */
  urlSecret: string;
  /** How long a signed audio link is valid. */
  linkTtlSec: number;
  /** VOXDEX_PUBLIC_URL: where audio links point (else the request's validated Host). */
  publicUrl?: string;
}

const AUDIO_PARAMS = ['token', 'file', 'channel', 'inline'];
const SIGNED_PARAMS = ['file', 'channel', 'expires', 'by', 'sig'];
const INLINE: Record<string, boolean> = { true: true, false: false, 1: true, 0: false };

export function mountAudioRoutes(routes: RouteTable, d: AudioRouteDeps): void {
  routes.add('GET', '/transcribe/:id/audio', async (req, res) => {
    const params = await readFields(req, AUDIO_PARAMS);
    const id = req.params.id!;
    let job: Job | undefined;
    const principal = await d.access.check(requestToken(req, params.token), async () => {
      if (!isUuid(id)) throw voxdexError('BAD_ARGUMENT', `Expected the requestid returned by POST /transcribe (a UUID) but received ${JSON.stringify(id)}`);
      job = await d.store.get(id);
      if (!job) throw voxdexError('NOT_FOUND', `Request ${id} does not exist (or was deleted)`);
      return { company: job.destination.company };
    });
    const channel = parseChannel(params.channel);
    const inline = params.inline === undefined ? false : INLINE[params.inline];
    if (inline === undefined) throw invalidParameter('inline', 'true or false', params.inline);
    // A job accepted before its company's redaction policy is named as it may be shown now.
    const shown = shownJob(job!, d.tenancy);
    const file = await audioFile(d, shown, params.file);
    const company = job!.destination.company;
    const heard = (range: PlayedRange) => d.access.record(req, principal, { company, action: 'audio.play', target: id, detail: { file: params.file, channel, ...range } });
    if (inline) return sendAudio(req, res, file, channel, params.file ?? shown.source, heard);
    try {
      openPlayableWav(file.source, channel); // a channel the recording lacks is refused now, not when the link is used
    } finally {
      await file.release();
    }
    const expires = Math.floor(Date.now() / 1000) + d.linkTtlSec;
    const query = new URLSearchParams();
    if (params.file !== undefined) query.set('file', params.file);
    query.set('channel', String(channel));
    query.set('expires', String(expires));
    // Who asked for the link plays through it: the trail names them for each range the player fetches.
    const by = whoOf(principal);
    query.set('by', by);
    query.set('sig', signAudio(d.urlSecret, id, params.file ?? '', String(channel), expires, by));
    sendJson(res, 200, `${linkOrigin(req, d.publicUrl)}/transcribe/download/${id}/audio?${query}`);
  });

  const signed = async (req: Req, res: Res) => {
    checkParamNames(Object.keys(req.query ?? {}), SIGNED_PARAMS, []);
    const id = req.params.id;
    const expires = Number(queryValue(req, 'expires'));
    const file = queryValue(req, 'file');
    const channelRaw = queryValue(req, 'channel') ?? 'all';
    const sig = queryValue(req, 'sig') ?? '';
    const by = queryValue(req, 'by') ?? '';
    const good = isUuid(id) && Number.isSafeInteger(expires) && safeEqual(sig, signAudio(d.urlSecret, id, file ?? '', channelRaw, expires, by));
    if (!good) throw voxdexError('BAD_TOKEN', 'This audio link is not valid; ask GET /transcribe/{requestid}/audio for a new one');
    if (expires < Date.now() / 1000) throw voxdexError('BAD_TOKEN', 'This audio link has expired; ask GET /transcribe/{requestid}/audio for a new one');
    const stored = await d.store.get(id!);
    if (!stored) throw voxdexError('NOT_FOUND', `Request ${id} no longer exists`);
    const job = shownJob(stored, d.tenancy);
    const channel = parseChannel(channelRaw);
    const heard = (range: PlayedRange) => d.trail.record(req, by, { company: stored.destination.company, action: 'audio.play', target: id!, detail: { file, channel, link: true, ...range } });
    return sendAudio(req, res, await audioFile(d, job, file), channel, file ?? job.source, heard);
  };
  routes.add(['GET', 'HEAD'], '/transcribe/download/:id/audio', signed);
}

/** `all` | `mix` | a channel number 0–255 (absent: all). */
export function parseChannel(raw: string | undefined): ChannelSelection {
  if (raw === undefined || raw === 'all') return 'all';
  if (raw === 'mix') return 'mix';
  if (!/^\d{1,3}$/.test(raw)) throw invalidParameter('channel', 'all, mix or a channel number', raw);
  return parseInteger('channel', raw, 0, 255);
}

/** A stored recording opened for reading (its sealed bytes decrypted as they are read); the caller releases it. */
interface OpenedAudio {
  source: ByteSource;
  release(): Promise<void>;
}

/**
 * Whether only the redacted copy may be served: the job ran (or will run) with scrubaudio, or it has
 * not finished and its company's policy now scrubs audio (the policy applies to queued work).
 */
function scrubbed(d: AudioRouteDeps, job: Job): boolean {
  if (job.options?.scrubaudio) return true;
  const unfinished = job.state === 'queued' || job.state === 'running';
  return unfinished && (d.tenancy.companySettings(job.destination.company).scrub ?? []).includes('audio');
}

function notReady(job: Job, what: string): VoxdexError {
  return new VoxdexError('NOT_READY', `${what} can be played once it is transcribed (request ${job.id} is ${job.state}); ask again when the request is done.`, { status: 409 });
}

/**
 * The stored recording of a request's file (the upload itself, or the audio kept for it: an archive
 * member's, or the silenced copy under scrubaudio), opened from the blob's own file in the embedded
 * store or a copy of its sealed bytes in scratchDir from object storage. Under scrubaudio only the
 * silenced copy is ever served: 409 NOT_READY until it exists, 404 when the job ended without one.
 */
async function audioFile(d: AudioRouteDeps, job: Job, file: string | undefined): Promise<OpenedAudio> {
  if (job.kind === 'audio') {
    if (file !== undefined && file !== job.source) {
      throw voxdexError('NOT_FOUND', `Request ${job.id} holds one file, ${JSON.stringify(job.source)}, not ${JSON.stringify(file)}`);
    }
    // scrubaudio keeps a silenced copy as member 0 and deletes the upload.
    const kept = await local(d, blobKeys.memberAudio(job.id, 0));
    if (kept) return kept;
    if (scrubbed(d, job)) {
      if (job.state === 'queued' || job.state === 'running') throw notReady(job, 'The redacted recording');
      throw voxdexError('NOT_FOUND', `Request ${job.id} ended ${job.state} without a redacted recording; under scrubaudio the unredacted upload is never kept or served`);
    }
    const upload = await local(d, job.uploadPath);
    if (!upload) throw voxdexError('NOT_FOUND', `The recording of request ${job.id} no longer exists`);
    return upload;
  }
  if (file === undefined || file === '') {
    throw voxdexError('BAD_ARGUMENT', `Request ${job.id} is an archive: name the member to play in file= (the transcript's "source")`);
  }
  const item = (await d.store.items(job.id)).find((i) => i.member === file);
  if (!item) throw voxdexError('NOT_FOUND', `Request ${job.id} has no file ${JSON.stringify(file)}`);
  const stored = await local(d, blobKeys.memberAudio(job.id, item.idx));
  if (stored) return stored;
  if (item.state === 'failed') throw voxdexError('NOT_FOUND', `${file} failed (${item.error?.code ?? 'REQUEST_FAILED'}); its audio was not kept`);
  if (item.state !== 'done' && (job.state === 'queued' || job.state === 'running')) throw notReady(job, file);
  if (item.state !== 'done') throw voxdexError('NOT_FOUND', `${file} was not transcribed (request ${job.id} is ${job.state}); its audio was not kept`);
  throw voxdexError('NOT_FOUND', `The audio of ${file} was not kept (it was transcribed before voxdex kept archive members for playback)`);
}

async function local(d: AudioRouteDeps, key: string): Promise<OpenedAudio | undefined> {
  let copy: LocalCopy;
  try {
    copy = await d.blobs.localCopy(key, d.scratchDir);
  } catch (err) {
    if ((err as { code?: string }).code === 'NOT_FOUND') return undefined;
    throw err;
  }
  try {
    const source = d.seal.openStored(copy.path);
    return {
      source,
      release: async () => {
        await source.close();
        await copy.release();
      },
    };
  } catch (err) {
    await copy.release();
    throw err;
  }
}

/** The seconds of the recording a response holds (from the byte range of the 16-bit WAV served). */
export interface PlayedRange {
  fromSec: number;
  toSec: number;
}

/**
 * Sends the converted WAV (then releases the file): the whole file (200) or one byte range (206); 416 for
 * a range outside it. `heard` writes the range to the audit trail before a byte is sent.
 */
async function sendAudio(req: Req, res: Res, file: OpenedAudio, channel: ChannelSelection, name: string, heard: (range: PlayedRange) => Promise<void>): Promise<void> {
  let released = false;
  const release = () => {
    if (!released) void file.release();
    released = true;
  };
  try {
    await streamAudio(req, res, file.source, channel, name, release, heard);
  } catch (err) {
    release();
    throw err;
  }
}

async function streamAudio(req: Req, res: Res, file: ByteSource, channel: ChannelSelection, name: string, done: () => void, heard: (range: PlayedRange) => Promise<void>): Promise<void> {
  const wav = openPlayableWav(file, channel);
  const base = `${name.split(/[\\/]/).pop()!.replace(/\.[^.]*$/, '').replace(/[^\w.-]+/g, '_') || 'audio'}-${channel}.wav`;
  const headers: Record<string, string | number> = {
    'Content-Type': 'audio/wav',
    'Accept-Ranges': 'bytes',
    'Cache-Control': 'private, no-store',
    'X-Content-Type-Options': 'nosniff',
    'Content-Disposition': `inline; filename="${base}"`,
  };
  const range = parseRange(req.headers.range, wav.size);
  if (range === 'unsatisfiable') {
    throw new VoxdexError('RANGE_NOT_SATISFIABLE', `The requested range is outside the ${wav.size} bytes of this audio; ask for bytes=0-${wav.size - 1} or less`, {
      contentRange: `bytes */${wav.size}`,
    });
  }
  const [start, end] = range ?? [0, wav.size - 1];
  const sec = (byte: number) => Math.round((Math.max(0, byte - PLAYABLE_HEADER_BYTES) / (wav.sampleRate * wav.channels * 2)) * 1000) / 1000;
  if (req.method !== 'HEAD') await heard({ fromSec: sec(start), toSec: sec(end + 1) });
  headers['Content-Length'] = end - start + 1;
  if (range) headers['Content-Range'] = `bytes ${start}-${end}/${wav.size}`;
  res.writeHead(range ? 206 : 200, headers);
  if (req.method === 'HEAD') {
    res.end();
    done();
    return;
  }
  const body = wav.stream(start, end);
  body.on('error', () => res.destroy());
  res.on('close', () => {
    body.destroy();
    done();
  });
  body.pipe(res);
}

/**
 * One `bytes=` range (RFC 9110 §14.1.2) → [start, end] inclusive, clamped to the size. Absent,
 * malformed or several ranges → undefined (the whole file, 200); a first byte past the end →
 * 'unsatisfiable'.
 */
export function parseRange(header: string | undefined, size: number): [number, number] | 'unsatisfiable' | undefined {
  if (header === undefined) return undefined;
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return 'unsatisfiable';
    return [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(m[1]);
  const end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  if (!Number.isSafeInteger(start) || start >= size) return 'unsatisfiable';
  if (end < start) return undefined;
  return [start, end];
}

function signAudio(secret: string, id: string, file: string, channel: string, expires: number, by: string): string {
  return createHmac('sha256', secret).update(`audio\n${id}\n${file}\n${channel}\n${expires}\n${by}`).digest('hex');
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a, 'utf8');
  const y = Buffer.from(b, 'utf8');
  return x.length === y.length && timingSafeEqual(x, y);
}
