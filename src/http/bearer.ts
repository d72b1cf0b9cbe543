/**
 * `Authorization: Bearer <token>` (ours): the token in a header instead of the query string or form,
 * so that a browser (the web UI) never puts it into a URL. Every route that takes `token` accepts it.
 * The header is never logged (pino redacts `token`; no request headers are logged).
 */
import type { IncomingMessage } from 'node:http';
import { voxdexError } from '../errors.js';

/** The token of a request: the Authorization header's bearer token, else the `token` parameter. */
export function requestToken(req: IncomingMessage, param: string | undefined): string | undefined {
  const header = req.headers.authorization;
  if (header === undefined) return param;
  const m = /^Bearer[ \t]+([^\s]+)[ \t]*$/i.exec(header);
  if (!m) throw voxdexError('BAD_TOKEN', 'The Authorization header must be "Bearer <token>" with the company or root token');
  if (param !== undefined && param !== m[1]) {
    throw voxdexError('BAD_ARGUMENT', 'Two different tokens were sent (the Authorization header and the token parameter); send the token once');
  }
  return m[1];
}
