import { describe, expect, it } from 'vitest';
import { decodeJwtUnverified, describeClaims, formatNumericDate, formatRelative } from '../../src/oauth/jwt.js';

function jwt(header: object, claims: object): string {
  const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
  return `${enc(header)}.${enc(claims)}.c2ln`;
}

describe('decodeJwtUnverified', () => {
  it('returns header and claims of a JWT', () => {
    const token = jwt({ alg: 'RS256', typ: 'at+jwt', kid: 'k1' }, { sub: 'alice', scope: 'photo', exp: 1_700_000_000 });
    expect(decodeJwtUnverified(token)).toEqual({ header: { alg: 'RS256', typ: 'at+jwt', kid: 'k1' }, claims: { sub: 'alice', scope: 'photo', exp: 1_700_000_000 } });
  });
  it.each(['opaque-token', 'a.b', 'a.b.c', `${Buffer.from('{}').toString('base64url')}.bm90IGpzb24.x`, 'a.b.c.d.e'])('is undefined for %j', (token) => {
    expect(decodeJwtUnverified(token)).toBeUndefined();
  });
});

describe('times', () => {
  const now = Date.UTC(2025, 0, 31, 12, 0, 0);
  it('formats a NumericDate in UTC with a relative part', () => {
    expect(formatNumericDate(now / 1000 + 300, now)).toBe('2025-01-31 12:05:00 UTC (in 5 min)');
    expect(formatNumericDate(now / 1000 - 7200, now)).toBe('2025-01-31 10:00:00 UTC (2 h ago)');
  });
  it('formats relative durations', () => {
    expect(formatRelative(0)).toBe('now');
    expect(formatRelative(45_000)).toBe('in 45 s');
    expect(formatRelative(-3 * 86_400_000)).toBe('3 d ago');
  });
  it('describes time claims in human form and others as they are', () => {
    expect(describeClaims({ sub: 'alice', exp: now / 1000 + 60, aud: ['a', 'b'] }, now)).toEqual(['sub: alice', `exp: ${now / 1000 + 60} = 2025-01-31 12:01:00 UTC (in 1 min)`, 'aud: ["a","b"]']);
  });
});
