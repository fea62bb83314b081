import { formatRelative } from './jwt.js';
import { constantTimeEqual } from './pkce.js';

/** One check of a JWT, reported as it went: what was checked and what was seen. */
export interface JwtCheck {
  name: 'signature' | 'iss' | 'aud' | 'azp' | 'exp' | 'nbf' | 'iat' | 'nonce' | 'sub';
  status: 'pass' | 'fail' | 'skip';
  detail: string;
}

export interface ClaimExpectations {
  /** The issuer trusted for this token; iss must equal it exactly (RFC 7519 section 4.1.1). */
  issuer?: string | undefined;
  /** A value aud must hold (RFC 7519 section 4.1.3); for an ID token, the client id. */
  audience?: string | undefined;
  /** The nonce sent in the authorization request (OpenID Connect Core section 3.1.2.1). */
  nonce?: string | undefined;
  /** Milliseconds since the epoch. */
  nowMs: number;
  /** Allowed clock difference for exp, nbf and iat, default 60 s. */
  clockToleranceSeconds?: number | undefined;
  /** OpenID Connect Core section 3.1.3.7: iss, sub, aud, exp and iat must be present, azp checked. */
  idToken?: boolean | undefined;
}

export const DEFAULT_CLOCK_TOLERANCE_SECONDS = 60;

/**
 * Checks the standard claims one by one, so that each is reported (RFC 7519 section 4.1, RFC 9068
 * section 4, OpenID Connect Core section 3.1.3.7). Pure: the caller passes the time.
 */
export function checkClaims(claims: Readonly<Record<string, unknown>>, expect: ClaimExpectations): JwtCheck[] {
  const tolerance = expect.clockToleranceSeconds ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
  const now = expect.nowMs / 1000;
  const checks: JwtCheck[] = [];
  const required = expect.idToken === true;

  // iss
  if (expect.issuer !== undefined) {
    if (claims.iss === expect.issuer) checks.push({ name: 'iss', status: 'pass', detail: `iss is ${expect.issuer}` });
    else checks.push({ name: 'iss', status: 'fail', detail: claims.iss === undefined ? `iss is missing; expected ${expect.issuer}` : `iss is ${show(claims.iss)}, expected ${expect.issuer}` });
  } else if (required && typeof claims.iss !== 'string') {
    checks.push({ name: 'iss', status: 'fail', detail: 'iss is missing' });
  } else {
    checks.push({ name: 'iss', status: 'skip', detail: 'no issuer to compare with (give --issuer)' });
  }

  if (required) {
    checks.push(typeof claims.sub === 'string' && claims.sub !== '' ? { name: 'sub', status: 'pass', detail: `sub is ${claims.sub}` } : { name: 'sub', status: 'fail', detail: 'sub is missing' });
  }

  // aud (and azp for an ID token with several audiences)
  const audiences = typeof claims.aud === 'string' ? [claims.aud] : Array.isArray(claims.aud) ? claims.aud.filter((a): a is string => typeof a === 'string') : [];
  if (expect.audience !== undefined) {
    if (audiences.includes(expect.audience)) checks.push({ name: 'aud', status: 'pass', detail: `aud holds ${expect.audience}` });
    else
      checks.push({ name: 'aud', status: 'fail', detail: audiences.length ? `aud is ${audiences.join(', ')}, which does not hold ${expect.audience}` : `aud is missing; expected ${expect.audience}` });
    if (required && (audiences.length > 1 || claims.azp !== undefined)) {
      checks.push(
        claims.azp === expect.audience
          ? { name: 'azp', status: 'pass', detail: `azp is ${expect.audience}` }
          : { name: 'azp', status: 'fail', detail: `azp is ${show(claims.azp)}, expected ${expect.audience}` },
      );
    }
  } else {
    checks.push({ name: 'aud', status: 'skip', detail: audiences.length ? `aud is ${audiences.join(', ')}; not compared (give --audience)` : 'no aud claim and none expected' });
  }

  // exp
  if (typeof claims.exp === 'number') {
    const left = claims.exp - now;
    checks.push(
      left + tolerance > 0 ? { name: 'exp', status: 'pass', detail: `expires ${formatRelative(left * 1000)}` } : { name: 'exp', status: 'fail', detail: `expired ${formatRelative(left * 1000)}` },
    );
  } else if (claims.exp !== undefined) {
    checks.push({ name: 'exp', status: 'fail', detail: `exp is not a NumericDate: ${show(claims.exp)}` });
  } else {
    checks.push(required ? { name: 'exp', status: 'fail', detail: 'exp is missing' } : { name: 'exp', status: 'skip', detail: 'no exp claim: the token never expires by itself' });
  }

  // nbf
  if (typeof claims.nbf === 'number') {
    const wait = claims.nbf - now;
    checks.push(
      wait - tolerance <= 0
        ? { name: 'nbf', status: 'pass', detail: `valid since ${formatRelative(wait * 1000)}` }
        : { name: 'nbf', status: 'fail', detail: `not valid yet: becomes valid ${formatRelative(wait * 1000)}` },
    );
  } else if (claims.nbf !== undefined) {
    checks.push({ name: 'nbf', status: 'fail', detail: `nbf is not a NumericDate: ${show(claims.nbf)}` });
  }

  // iat: must not lie in the future
  if (typeof claims.iat === 'number') {
    const age = claims.iat - now;
    checks.push(
      age - tolerance <= 0
        ? { name: 'iat', status: 'pass', detail: `issued ${formatRelative(age * 1000)}` }
        : { name: 'iat', status: 'fail', detail: `issued in the future (${formatRelative(age * 1000)}): check the clocks` },
    );
  } else if (required || claims.iat !== undefined) {
    checks.push({ name: 'iat', status: 'fail', detail: claims.iat === undefined ? 'iat is missing' : `iat is not a NumericDate: ${show(claims.iat)}` });
  }

  // nonce: binds the ID token to this authorization request (replay protection)
  if (expect.nonce !== undefined) {
    if (typeof claims.nonce !== 'string') checks.push({ name: 'nonce', status: 'fail', detail: 'nonce is missing, but one was sent in the authorization request' });
    else if (constantTimeEqual(claims.nonce, expect.nonce)) checks.push({ name: 'nonce', status: 'pass', detail: 'nonce matches the one sent' });
    else checks.push({ name: 'nonce', status: 'fail', detail: 'nonce differs from the one sent: the ID token may be replayed' });
  }
  return checks;
}

function show(value: unknown): string {
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Human phrase for a time claim relative to now: "expires in 4 min", "expired 2 h ago", "issued 3 min ago". */
export function describeTimeClaim(name: string, seconds: number, nowMs: number): string {
  const delta = seconds * 1000 - nowMs;
  const rel = formatRelative(delta);
  switch (name) {
    case 'exp':
      return delta > 0 ? `expires ${rel}` : `expired ${rel}`;
    case 'nbf':
      return delta > 0 ? `becomes valid ${rel}` : `valid since ${rel}`;
    case 'iat':
      return `issued ${rel}`;
    case 'auth_time':
      return `authenticated ${rel}`;
    case 'updated_at':
      return `updated ${rel}`;
    default:
      return rel;
  }
}
