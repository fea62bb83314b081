// jose by subpath: its index loads every JWE and key-generation module too (tens of ms at start-up).
import type { JSONWebKeySet, JWTPayload, ProtectedHeaderParameters } from 'jose';
import { decodeProtectedHeader } from 'jose/decode/protected_header';
import * as errors from 'jose/errors';
import { createLocalJWKSet } from 'jose/jwks/local';
import { compactVerify } from 'jose/jws/compact/verify';
import { decodeJwt } from 'jose/jwt/decode';
import { FlowError } from '../../errors.js';
import { checkClaims, type ClaimExpectations, type JwtCheck } from '../../oauth/jwt-claims.js';
import type { HttpClient } from '../http/http.js';

/**
 * Verifies a JWT against a key set with jose: the signature first, then each standard claim, every
 * check reported whether it passed or not (a user debugging a token wants all of them at once).
 */
export interface JwtVerification {
  ok: boolean;
  header: ProtectedHeaderParameters;
  claims: JWTPayload;
  checks: JwtCheck[];
}

/** Keys are fetched once per run through the tool's HTTP client (proxies, CAs, --verbose traces). */
export async function fetchJwks(http: HttpClient, jwksUri: string): Promise<JSONWebKeySet> {
  const res = await http.request(jwksUri, { headers: { accept: 'application/jwk-set+json, application/json' } });
  if (res.status !== 200) throw new FlowError(`the JWKS at ${jwksUri} answered HTTP ${res.status}`, 'check the jwks_uri or --jwks-url');
  const body = res.json<unknown>();
  if (!body || typeof body !== 'object' || !Array.isArray((body as { keys?: unknown }).keys)) {
    throw new FlowError(`${jwksUri} is not a JSON Web Key Set (RFC 7517 section 5: {"keys": [...]})`);
  }
  return body as JSONWebKeySet;
}

/** The signature check alone, as a JwtCheck. Only asymmetric algorithms are checked against a JWKS. */
export async function checkSignature(token: string, jwks: JSONWebKeySet, jwksUri?: string): Promise<JwtCheck> {
  let header: ProtectedHeaderParameters;
  try {
    header = decodeProtectedHeader(token);
  } catch {
    return { name: 'signature', status: 'fail', detail: 'the header cannot be decoded' };
  }
  const alg = header.alg ?? '(none)';
  if (alg === 'none') return { name: 'signature', status: 'fail', detail: 'the token is unsigned (alg none)' };
  if (/^HS/.test(alg)) return { name: 'signature', status: 'fail', detail: `${alg} is a shared-secret MAC; it cannot be checked against public keys` };
  const from = jwksUri ? ` from ${jwksUri}` : '';
  try {
    // The JWKS selects the key by kid, alg and key type (RFC 7515 section 4.1.4).
    await compactVerify(token, createLocalJWKSet(jwks));
    return { name: 'signature', status: 'pass', detail: `${alg} signature valid (key ${header.kid ? `kid ${header.kid}` : 'without kid'}${from})` };
  } catch (err) {
    if (err instanceof errors.JWKSNoMatchingKey) {
      return { name: 'signature', status: 'fail', detail: `no key${from} matches ${header.kid ? `kid ${header.kid}` : 'the token'} and ${alg}` };
    }
    if (err instanceof errors.JWKSMultipleMatchingKeys) {
      return { name: 'signature', status: 'fail', detail: `several keys${from} match and the token names no kid` };
    }
    if (err instanceof errors.JWSSignatureVerificationFailed) {
      return {
        name: 'signature',
        status: 'fail',
        detail: `the ${alg} signature does not match the key${header.kid ? ` kid ${header.kid}` : ''}${from}: the token was changed or signed by someone else`,
      };
    }
    return { name: 'signature', status: 'fail', detail: `cannot verify: ${(err as Error).message}` };
  }
}

/** Signature and claims of any JWT (an access token per RFC 9068, an ID token, ...). */
export async function verifyJwt(token: string, jwks: JSONWebKeySet, expect: ClaimExpectations & { jwksUri?: string | undefined }): Promise<JwtVerification> {
  const header = decodeProtectedHeader(token);
  const claims = decodeJwt(token);
  const checks = [await checkSignature(token, jwks, expect.jwksUri), ...checkClaims(claims, expect)];
  return { ok: checks.every((c) => c.status !== 'fail'), header, claims, checks };
}

export interface IdTokenExpectations {
  http: HttpClient;
  jwksUri: string;
  issuer: string;
  clientId: string;
  nonce?: string | undefined;
  nowMs?: number | undefined;
}

/**
 * An ID token as OpenID Connect Core section 3.1.3.7 says a client must check it: signature against
 * the issuer's keys, iss, aud (holding the client id; azp when there are several), exp, iat, and the
 * nonce sent in the authorization request.
 */
export async function verifyIdToken(idToken: string, expect: IdTokenExpectations): Promise<JwtVerification> {
  const jwks = await fetchJwks(expect.http, expect.jwksUri);
  return verifyJwt(idToken, jwks, {
    jwksUri: expect.jwksUri,
    issuer: expect.issuer,
    audience: expect.clientId,
    nonce: expect.nonce,
    nowMs: expect.nowMs ?? Date.now(),
    idToken: true,
  });
}
