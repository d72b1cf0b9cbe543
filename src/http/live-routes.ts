/**
 * Live calls over HTTP (docs/live.md): `GET /transcribe/stream[/{ORG}/{FOLDER}]` upgraded
 * to a WebSocket (the `ws` library), the same service as `POST /transcribe?realtime=true` with the
 * audio as a streamed request body and one JSON line per message in the response, and for the web
 * page the calls in progress (`GET /live/calls`) and one call's messages as they come
 * (`GET /live/calls/{id}/events`, server-sent events). Everything is checked before the upgrade or
 * the first line: a bad request gets its error's HTTP status and body instead (docs/service.md, "Errors").
 */
import { STATUS_CODES, type IncomingMessage } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import { toVoxdexError, voxdexError, VoxdexError } from '../errors.js';
import { invalidParameter, parseInteger } from '../is.js';
import type { JobIntake } from '../jobs/job-intake.js';
import { LiveCalls, type LiveSession, type LiveTransport } from '../jobs/live-calls.js';
import { pickRequestOptions } from '../jobs/request-options.js';
import { declaredFormat, LIVE_ENCODINGS, LIVE_MAX_CHANNELS, LIVE_MAX_RATE, LIVE_MIN_RATE, type LiveEncoding } from '../live/audio-input.js';
import type { Logger } from '../log.js';
import type { Limiter } from '../rate-limit/limiter.js';
import type { Principal } from '../tenancy/tenancy.js';
import { requestToken } from './bearer.js';
import { queryValue, sendJson, type Req, type Res, type RouteTable } from './server.js';
import { destinationOf, type SubmitPath, type TranscribeRouteDeps } from './transcribe-routes.js';
import { checkParamNames, TRANSCRIBE_PARAMS } from './upload-form.js';
import { singleValues } from './single-fields.js';

/** What a live call takes beside the upload's parameters (no file, no archive password). */
export const LIVE_PARAMS = [...TRANSCRIBE_PARAMS.filter((p) => p !== 'file' && p !== 'zpass'), 'encoding', 'rate', 'channels', 'partials', 'realtime'] as const;

export interface LiveRouteDeps extends Pick<TranscribeRouteDeps, 'access' | 'tenancy'> {
  /** Absent on a node that takes no live calls (role api or worker). */
  live: LiveCalls | undefined;
  intake: Pick<JobIntake, 'prepare' | 'checkCapacity'> | undefined;
  rateLimit?: Limiter;
  log: Logger;
}

/** A checked live call, before it is opened. */
interface LiveStart {
  principal: Principal;
  session: LiveSession;
}

const BOOLEAN: Record<string, boolean> = { true: true, false: false, 1: true, 0: false };
const STREAM_PATH = /^\/transcribe\/stream(?:\/([^/?]+)\/([^/?]+)(?:\/([^/?]+))?)?\/?$/;

/** Validates a live call's request and opens it (manifest and recording on disk): errors are the error table's (docs/service.md, "Errors"). */
async function startCall(d: LiveRouteDeps, req: IncomingMessage, query: Record<string, string | string[]>, path: SubmitPath): Promise<LiveStart> {
  if (!d.live || !d.intake) {
    throw new VoxdexError('NOT_READY', 'This node takes no live calls (it runs with --role api or worker); send live calls to a node with role all', { retryAfterSec: 60 });
  }
  const params = singleValues(query);
  const ignored: string[] = [];
  checkParamNames(Object.keys(params), LIVE_PARAMS, ignored);
  const { principal, destination } = await destinationOf(d, path, requestToken(req, params.token));
  await d.rateLimit?.check(principal);
  await d.intake.checkCapacity();
  const prepared = d.intake.prepare({
    destination,
    model: params.model,
    output: params.output,
    callback: params.callback,
    callbackerror: params.callbackerror,
    metadata: params.metadata,
    datetime: params.datetime,
    options: pickRequestOptions(params),
    ignored: ignored.filter((n) => n !== 'realtime'),
  });
  const encoding = (params.encoding || 'pcm16') as LiveEncoding;
  if (!LIVE_ENCODINGS.includes(encoding)) throw invalidParameter('encoding', `one of ${LIVE_ENCODINGS.join(', ')}`, params.encoding);
  const rate = params.rate ? parseInteger('rate', params.rate, LIVE_MIN_RATE, LIVE_MAX_RATE) : 8000;
  if (params.rate && (rate < LIVE_MIN_RATE || rate > LIVE_MAX_RATE)) throw voxdexError('BAD_SAMPLE_RATE', `rate ${rate} is outside ${LIVE_MIN_RATE}–${LIVE_MAX_RATE}`);
  const channels = params.channels ? parseInteger('channels', params.channels, 1, LIVE_MAX_CHANNELS) : 1;
  const partials = params.partials ? BOOLEAN[params.partials] : false;
  if (partials === undefined) throw invalidParameter('partials', 'one of true, false, 1, 0', params.partials);
  const session = await d.live.open(prepared, { format: declaredFormat(encoding, rate, channels), partials });
  await d.rateLimit?.charge(principal);
  return { principal, session };
}

/** The `upgrade` listener of the HTTP server: WebSocket live calls on /transcribe/stream. */
export function liveUpgrade(d: LiveRouteDeps): (req: IncomingMessage, socket: Duplex, head: Buffer) => void {
  const maxPayload = d.live?.limits.maxMessageBytes ?? 1 << 20;
  const wss = new WebSocketServer({ noServer: true, maxPayload, perMessageDeflate: false });
  return (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const m = STREAM_PATH.exec(url.pathname);
    if (!m) return refuse(socket, voxdexError('NOT_FOUND', `No WebSocket endpoint at ${url.pathname}; live calls are at /transcribe/stream`));
    const path: SubmitPath = m[3] !== undefined ? { company: m[1], org: m[2], folder: m[3] } : m[1] !== undefined ? { org: m[1], folder: m[2] } : {};
    socket.on('error', () => undefined);
    startCall(d, req, queryObject(url), path).then(
      ({ session }) => {
        if (socket.destroyed) return session.dropped();
        wss.handleUpgrade(req, socket, head, (ws) => connect(session, ws, maxPayload));
      },
      (err: unknown) => refuse(socket, err, d.log),
    );
  };
}

/** The WebSocket of a call: binary audio in, JSON text messages out; back-pressure by pausing the socket. */
function connect(session: LiveSession, ws: WebSocket, maxPayload: number): void {
  let closeCode = 1000;
  const transport: LiveTransport = {
    send: (text) => {
      // A client that stops reading: its messages pile up here; past 8 MiB it is dropped (the call is kept).
      if (ws.bufferedAmount > 8 << 20) return ws.terminate();
      ws.send(text);
    },
    close: () => ws.close(closeCode),
    pause: () => ws.pause(),
    resume: () => ws.resume(),
  };
  session.attach(transport);
  beforeOversizeClose(ws, () => {
    closeCode = 1009;
    void session.finish(voxdexError('TOO_LARGE', `A live message may hold at most ${maxPayload} bytes (${maxPayload >> 10} KiB); send the audio in smaller messages, e.g. 100 ms each (docs/live.md)`));
  });
  ws.on('message', (data, isBinary) => {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data as ArrayBuffer);
    if (isBinary) session.audio(buf);
    else session.text(buf.toString('utf8'));
  });
  ws.on('close', () => session.dropped());
  ws.on('error', () => session.dropped());
}

/**
 * Runs `then` when a message over `maxPayload` arrives, before `ws` answers it: ws closes such a
 * connection with 1009 at once and reports it only afterwards, so the listener goes first on ws's
 * frame reader (its `_receiver`, which the typings do not show) and the call sends its `error`
 * message before the close. Other read errors (bad frames) keep ws's own close.
 */
function beforeOversizeClose(ws: WebSocket, then: () => void): void {
  const receiver = (ws as unknown as { _receiver?: { prependListener(event: 'error', fn: (err: { code?: string }) => void): void } })._receiver;
  if (!receiver) throw new Error('ws no longer exposes its frame reader: update beforeOversizeClose (src/http/live-routes.ts)');
  receiver.prependListener('error', (err) => {
    if (err.code === 'WS_ERR_UNSUPPORTED_MESSAGE_LENGTH') then();
  });
}

/** An error instead of the upgrade: its HTTP status and JSON body (docs/service.md, "Errors"), then the socket is closed. */
function refuse(socket: Duplex, err: unknown, log?: Logger): void {
  const e = toVoxdexError(err);
  if (e.code === 'INTERNAL') log?.error({ err: (e.cause as Error | undefined) ?? e }, 'live call refused');
  const body = JSON.stringify({ error: { code: e.code, message: e.message } });
  const headers = [`HTTP/1.1 ${e.status} ${STATUS_CODES[e.status] ?? ''}`, 'Content-Type: application/json; charset=utf-8', `Content-Length: ${Buffer.byteLength(body)}`, 'Connection: close'];
  if (e.status === 429 || e.status === 503) headers.push(`Retry-After: ${e.retryAfterSec ?? 30}`);
  if (!socket.destroyed) socket.end(`${headers.join('\r\n')}\r\n\r\n${body}`);
}

function queryObject(url: URL): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [k, v] of url.searchParams) {
    const prev = out[k];
    out[k] = prev === undefined ? v : Array.isArray(prev) ? [...prev, v] : [prev, v];
  }
  return out;
}

/** `POST /transcribe?realtime=true`: the audio as the request body (raw in the declared shape, or a WAV), one JSON line per message. */
export function realtimePost(d: LiveRouteDeps): (req: Req, res: Res, path: SubmitPath) => Promise<void> {
  return async (req, res, path) => {
    let start: LiveStart;
    try {
      start = await startCall(d, req, req.query ?? {}, path);
    } catch (err) {
      const e = toVoxdexError(err);
      if (!req.complete) e.closeConnection = true;
      throw e;
    }
    const { session } = start;
    res.writeHead(200, { 'Content-Type': 'application/x-ndjson; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
    let ended = false;
    session.attach({
      send: (text) => res.write(`${text}\n`),
      close: () => {
        res.end();
        if (!req.complete) req.destroy();
      },
      pause: () => req.pause(),
      resume: () => req.resume(),
    });
    req.on('data', (chunk: Buffer) => session.audio(chunk));
    req.on('end', () => {
      ended = true;
      session.audio(new Uint8Array(0));
    });
    res.on('close', () => {
      if (!ended || !res.writableFinished) session.dropped();
    });
  };
}

/** The web page's API: calls in progress, and one call's messages as server-sent events (docs/live.md). */
export function mountLiveRoutes(routes: RouteTable, d: LiveRouteDeps): void {
  routes.add('GET', '/transcribe/stream', () => {
    throw voxdexError('BAD_ARGUMENT', 'GET /transcribe/stream is a WebSocket: send the Upgrade: websocket headers (or stream the audio to POST /transcribe?realtime=true)');
  });
  routes.add('GET', '/live/calls', async (req, res) => {
    checkParamNames(Object.keys(req.query ?? {}), ['token'], []);
    const principal = d.access.authenticate(requestToken(req, queryValue(req, 'token')));
    sendJson(res, 200, { calls: d.live?.list(principal.kind === 'root' ? undefined : principal.company) ?? [] });
  });
  routes.add('GET', '/live/calls/:id/events', async (req, res) => follow(d, req, res));
}

async function follow(d: LiveRouteDeps, req: Req, res: Res): Promise<void> {
  checkParamNames(Object.keys(req.query ?? {}), ['token'], []);
  const principal = d.access.authenticate(requestToken(req, queryValue(req, 'token')));
  const session = d.live?.session(req.params.id ?? '');
  if (!session || !LiveCalls.allowed(principal, session)) {
    throw voxdexError('NOT_FOUND', `${req.params.id} is not a live call in progress on this node; a finished call's transcript is at GET /transcribe/{requestid}/result`);
  }
  res.writeHead(200, { 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
  const beat = setInterval(() => res.write(': keep-alive\n\n'), 15_000);
  const stop = session.follow((m) => {
    if (m === undefined) {
      clearInterval(beat);
      res.end();
    } else res.write(`data: ${m}\n\n`);
  });
  res.on('close', () => {
    clearInterval(beat);
    stop();
  });
}
