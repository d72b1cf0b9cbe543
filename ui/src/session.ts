/**
 * The signed-in token. Kept in sessionStorage only (gone when the tab closes), sent only in the
 * Authorization header or a POST body, never in a URL.
 */
const KEY = 'voxdex.token';

export function token(): string | undefined {
  return sessionStorage.getItem(KEY) ?? undefined;
}

export function signIn(value: string): void {
  sessionStorage.setItem(KEY, value);
}

export function signOut(): void {
  sessionStorage.removeItem(KEY);
}
