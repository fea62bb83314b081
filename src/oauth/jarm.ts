import { checkClaims, type JwtCheck } from './jwt-claims.js';

/**
 * JWT Secured Authorization Response Mode (JARM, adopted by FAPI 2.0 Message Signing section 5.4):
 * the authorization response's parameters as claims of one signed JWT, the `response` parameter.
 */
export const JARM_RESPONSE_MODES = ['jwt', 'query.jwt', 'fragment.jwt', 'form_post.jwt'] as const;
export type JarmResponseMode = (typeof JARM_RESPONSE_MODES)[number];

/** How the response JWT travels: JARM section 2.3.4, `jwt` for response_type=code means `query.jwt`. */
export type JarmDelivery = 'query' | 'fragment' | 'form_post';

export function isJarmResponseMode(value: string | undefined): value is JarmResponseMode {
  return value !== undefined && (JARM_RESPONSE_MODES as readonly string[]).includes(value);
}

export function jarmDelivery(mode: JarmResponseMode): JarmDelivery {
  if (mode === 'fragment.jwt') return 'fragment';
  if (mode === 'form_post.jwt') return 'form_post';
  return 'query';
}

/** Claims that describe the JWT itself rather than the authorization response (JARM section 2.1). */
const ENVELOPE_CLAIMS: ReadonlySet<string> = new Set(['aud', 'exp', 'iat', 'nbf', 'jti']);

/** JARM section 2.1: the response parameters, plus iss (the issuer), aud (the client) and exp. */
export function jarmClaims(params: Readonly<Record<string, string | undefined>>, issuer: string, clientId: string, nowSeconds: number, lifetimeSeconds: number): Record<string, unknown> {
  const claims: Record<string, unknown> = { iss: issuer, aud: clientId, exp: nowSeconds + lifetimeSeconds, iat: nowSeconds };
  for (const [name, value] of Object.entries(params)) if (value !== undefined && name !== 'iss') claims[name] = value;
  return claims;
}

/** A JWE in compact serialization has five parts (RFC 7516 section 7.1); a JWS three. */
export function isCompactJwe(token: string): boolean {
  return token.split('.').length === 5;
}

/**
 * JARM section 2.4 steps 3 to 5, the claims (the signature is the caller's, it needs keys): iss is the
 * issuer, aud holds the client id, exp is present and not past.
 */
export function checkJarmClaims(claims: Readonly<Record<string, unknown>>, expect: { issuer: string; clientId: string; nowMs: number }): JwtCheck[] {
  const checks = checkClaims(claims, { issuer: expect.issuer, audience: expect.clientId, nowMs: expect.nowMs }).filter(
    (c) => c.name === 'iss' || c.name === 'aud' || c.name === 'exp' || c.name === 'nbf' || c.name === 'iat',
  );
  const exp = checks.find((c) => c.name === 'exp');
  if (exp?.status === 'skip') exp.status = 'fail';
  if (exp !== undefined && claims.exp === undefined) exp.detail = 'exp is missing (JARM section 2.1 requires it)';
  return checks;
}

/**
 * The authorization response parameters the claims carry (JARM section 2.4 step 6): every claim but
 * the envelope's, as strings, iss kept so that RFC 9207's check sees the signed issuer.
 */
export function jarmResponseParams(claims: Readonly<Record<string, unknown>>): Record<string, string> {
  const params: Record<string, string> = {};
  for (const [name, value] of Object.entries(claims)) {
    if (ENVELOPE_CLAIMS.has(name)) continue;
    params[name] = typeof value === 'string' ? value : JSON.stringify(value);
  }
  return params;
}
