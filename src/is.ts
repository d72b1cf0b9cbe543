/** Edge validation helpers: one place for the checks and for their messages. */
import { voxdexError, type ErrorCode } from './errors.js';

export function invalidParameter(name: string, expected: string, actual: unknown, code: ErrorCode = 'BAD_ARGUMENT') {
  return voxdexError(code, `Expected ${expected} for ${name} but received ${describe(actual)}`);
}

function describe(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value.length > 80 ? `${value.slice(0, 77)}...` : value);
  if (value === undefined) return 'nothing';
  return `${value} of type ${typeof value}`;
}

export const SHORT_NAME = /^[A-Za-z0-9_.-]{1,64}$/;

export function isShortName(value: unknown): value is string {
  return typeof value === 'string' && SHORT_NAME.test(value) && value !== '.' && value !== '..';
}

export function isIntegerInRange(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= min && value <= max;
}

/** Parses a decimal integer string strictly ("12", not "12abc" or "1e3"). */
export function parseInteger(name: string, raw: string, min: number, max: number): number {
  const n = /^-?\d+$/.test(raw.trim()) ? Number(raw.trim()) : NaN;
  if (!isIntegerInRange(n, min, max)) throw invalidParameter(name, `an integer between ${min} and ${max}`, raw);
  return n;
}

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(value);
}

/**
 * Sets `obj[key]` as an own property even when key is `__proto__`: names that come from outside
 * (query strings, forms, JSON bodies) are entries like any other, never the prototype setter that drops them.
 */
export function setOwn<T>(obj: Record<string, T>, key: string, value: T): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
}
