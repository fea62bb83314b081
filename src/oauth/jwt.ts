import type { JWTPayload } from 'jose';
import { decodeJwt } from 'jose/jwt/decode';
import { decodeProtectedHeader, type ProtectedHeaderParameters } from 'jose/decode/protected_header';

export interface DecodedJwt {
  header: ProtectedHeaderParameters;
  claims: JWTPayload;
}

/** Numeric-date claims (RFC 7519 section 4.1, OpenID Connect Core section 2). */
export const TIME_CLAIMS: ReadonlySet<string> = new Set(['exp', 'iat', 'nbf', 'auth_time', 'updated_at']);

/** Header and claims of a JWS compact serialization (no signature check), or undefined when it is not a JWT. */
export function decodeJwtUnverified(token: string): DecodedJwt | undefined {
  if (token.split('.').length !== 3) return undefined;
  try {
    return { header: decodeProtectedHeader(token), claims: decodeJwt(token) };
  } catch {
    return undefined;
  }
}

/** `2025-01-31 12:00:00 UTC (in 5 min)` for a NumericDate, relative to `now` (ms). */
export function formatNumericDate(seconds: number, now: number = Date.now()): string {
  const date = new Date(seconds * 1000);
  if (Number.isNaN(date.getTime())) return String(seconds);
  const absolute = `${date
    .toISOString()
    .replace('T', ' ')
    .replace(/\.\d+Z$/, '')} UTC`;
  return `${absolute} (${formatRelative(seconds * 1000 - now)})`;
}

/** `in 5 min`, `3 h ago`, `now`. */
export function formatRelative(deltaMs: number): string {
  const abs = Math.abs(deltaMs);
  if (abs < 1000) return 'now';
  const units: [number, string][] = [
    [86_400_000, 'd'],
    [3_600_000, 'h'],
    [60_000, 'min'],
    [1000, 's'],
  ];
  const [size, unit] = units.find(([ms]) => abs >= ms) ?? [1000, 's'];
  const n = Math.floor(abs / size);
  return deltaMs > 0 ? `in ${n} ${unit}` : `${n} ${unit} ago`;
}

/** One `name: value` line per claim, times in human form. */
export function describeClaims(claims: Readonly<Record<string, unknown>>, now: number = Date.now()): string[] {
  return Object.entries(claims).map(([name, value]) => {
    if (TIME_CLAIMS.has(name) && typeof value === 'number') return `${name}: ${value} = ${formatNumericDate(value, now)}`;
    return `${name}: ${typeof value === 'string' ? value : JSON.stringify(value)}`;
  });
}
