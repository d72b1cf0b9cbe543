/**
 * The signed-in token. Kept in sessionStorage only (gone when the tab closes), sent only in the
 * Authorization header or a POST body, never in a URL.
 */
const KEY = 'voxdex.token';
/** What GET /account said for this token (names only, no secret): lets a reload start at once. */
const ACCOUNT = 'voxdex.account';

export function token(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function signIn(value: string): void {
  sessionStorage.setItem(KEY, value);
}

export function signOut(): void {
  sessionStorage.removeItem(KEY);
  sessionStorage.removeItem(ACCOUNT);
}

export function cachedAccount<T>(): T | undefined {
  const raw = sessionStorage.getItem(ACCOUNT);
  return raw ? (JSON.parse(raw) as T) : undefined;
}

export function cacheAccount(account: unknown): void {
  sessionStorage.setItem(ACCOUNT, JSON.stringify(account));
}
