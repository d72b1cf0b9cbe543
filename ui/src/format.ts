/** Display formats shared by the views. */

/** 75.25 → "1:15.2"; 3725 → "1:02:05.0". */
export function clock(seconds: number, decimals = 1): string {
  const s = Math.max(0, seconds);
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const rest = (s % 60).toFixed(decimals).padStart(decimals > 0 ? 3 + decimals : 2, '0');
  return h > 0 ? `${h}:${String(m).padStart(2, '0')}:${rest}` : `${m}:${rest}`;
}

/** A duration for people: "42 s", "3 min 05 s", "1 h 02 min". */
export function duration(seconds: number): string {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, '0')} s`;
  return `${Math.floor(s / 3600)} h ${String(Math.floor((s % 3600) / 60)).padStart(2, '0')} min`;
}

/** ISO date-time → "2026-11-22 14:05" in the viewer's time zone. */
export function dateTime(iso: string | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return iso;
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/** ISO date-time → "2026-11-22 14:05:09": to tell apart calls of the same name and minute. */
export function dateTimeSeconds(iso: string | undefined): string {
  const base = dateTime(iso);
  const d = new Date(iso ?? '');
  return Number.isNaN(d.getTime()) ? base : `${base}:${String(d.getSeconds()).padStart(2, '0')}`;
}

export function percent(x: number): string {
  return `${Math.round(x * 100)} %`;
}

/** The viewer's UTC offset now as `+01:00` (what the API's `tz` and dates with a zone take). */
export function zoneOffset(date = new Date()): string {
  const east = -date.getTimezoneOffset();
  const m = Math.abs(east);
  return `${east < 0 ? '-' : '+'}${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
}

/** Today (or `ms`) as the viewer's day, YYYY-MM-DD: the one date format of the page. */
export function localDay(ms = Date.now()): string {
  const d = new Date(ms);
  const p = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}`;
}

/** A day YYYY-MM-DD moved by `n` days. */
export function addDays(day: string, n: number): string {
  return new Date(Date.parse(`${day}T00:00:00Z`) + n * 86_400_000).toISOString().slice(0, 10);
}

export const DAY_PATTERN = /^\d{4}-\d{2}-\d{2}$/;

/** The API's from/to for the viewer's days `from`…`to` (both inclusive): midnight to the last millisecond, with the zone. */
export function dayRange(from: string | undefined, to: string | undefined): { from?: string; to?: string } {
  const tz = zoneOffset();
  return {
    ...(from && DAY_PATTERN.test(from) ? { from: `${from}T00:00:00${tz}` } : {}),
    ...(to && DAY_PATTERN.test(to) ? { to: `${to}T23:59:59.999${tz}` } : {}),
  };
}

/** "+25 %" / "−10 %" / "±0 %" of now against before; "new" when before was 0. */
export function change(now: number, before: number): string {
  if (before === 0) return now === 0 ? '±0 %' : 'new';
  const pct = Math.round(((now - before) / before) * 100);
  return pct === 0 ? '±0 %' : pct > 0 ? `+${pct} %` : `\u2212${Math.abs(pct)} %`;
}

/** "2 of 3 (67 %)". */
export function share(n: number, of: number): string {
  return of === 0 ? `${n} of 0` : `${n} of ${of} (${Math.round((100 * n) / of)} %)`;
}
