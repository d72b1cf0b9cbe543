/** Structured logging (pino). Tokens and secrets are redacted wherever they appear in logged objects. */
import { pino, type DestinationStream, type Logger } from 'pino';
import type { Config } from './config.js';

export type { Logger };

export function createLogger(config: Pick<Config, 'logLevel'>, destination?: DestinationStream): Logger {
  return pino(
    {
      level: config.logLevel,
      base: { svc: 'voxdex' },
      redact: { paths: ['token', '*.token', 'zpass', '*.zpass', 'secret', '*.secret', 'req.query.token'], censor: '[redacted]' },
    },
    destination,
  );
}

/** A logger that writes nothing, for library use and tests. */
export const silentLogger: Logger = pino({ level: 'silent' });
