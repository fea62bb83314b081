import type { JWTPayload, ProtectedHeaderParameters } from 'jose';
import { parseJson } from './json.js';

export interface DecodedJwt {
  header: ProtectedHeaderParameters;
  claims: JWTPayload;
}

/** Numeric-date claims (RFC 7519 section 4.1, OpenID Connect Core section 2). */
export const TIME_CLAIMS: ReadonlySet<string> = new Set(['exp', 'iat', 'nbf', 'auth_time', 'updated_at']);

/**
 * Header and claims of a JWS compact serialization (no signature check), or undefined when it is not a
 * JWT: three dot-separated parts, the first two base64url-encoded JSON objects (RFC 7519 section 7.2).
 * Done here rather than with jose, so that the commands that only show a token never load it.
 */
export function decodeJwtUnverified(token: string): DecodedJwt | undefined {
  const parts = token.split('.');
  if (parts.length !== 3) return undefined;
  const header = decodeJsonPart(parts[0]!);
  const claims = decodeJsonPart(parts[1]!);
  return header && claims ? { header: header as ProtectedHeaderParameters, claims: claims as JWTPayload } : undefined;
}

function decodeJsonPart(part: string): Record<string, unknown> | undefined {
  if (part === '' || !/^[A-Za-z0-9_-]+$/.test(part)) return undefined;
  try {
    const value: unknown = parseJson(Buffer.from(part, 'base64url').toString('utf8'));
    return value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
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
