import type { JsonWebKey } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWK, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { parseJson } from '../../../oauth/json.js';
import { fetchBounded, type BoundedFailure } from './bounded-fetch.js';
import { OUTBOUND_RULE } from '../config/config-outbound.js';
import type { AddressPolicy } from '../../../http/address-policy.js';
import { isLoopbackHost } from '../../../oauth/loopback.js';
import { HMAC_ALGS } from '../config/config-security.js';
import type { MockClient } from '../config/config.js';
import type { MockState } from '../http/http.js';
import { securityOf } from '../store/security-store.js';

const FETCH_TIMEOUT_MS = 5000;
const MAX_JWKS_BYTES = 64 * 1024;
/** Fetched keys are used this long; a key that is not found refetches at most this often. */
const KEYS_FRESH_MS = 5 * 60 * 1000;
const REFETCH_AFTER_MS = 10 * 1000;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/**
 * The client's public keys (RFC 7591 section 2): `jwks` from the configuration, or `jwks_uri` fetched
 * (https or loopback http only, no redirects, 5 s from connect to the last byte, 64 KiB: bounded-fetch.ts) and kept a
 * while. `refresh` asks for a new copy of a fetched set when a key was not found in it (key rotation),
 * at most every 10 s. One fetch per URL is under way at a time: forty assertions arriving together on
 * a cold cache wait for the same one (no fetch amplification).
 * Rejects with an Error whose message says why the keys cannot be had.
 */
export async function clientKeys(state: MockState, client: MockClient, refresh = false): Promise<JsonWebKey[]> {
  if (client.jwks) return client.jwks.keys;
  const uri = client.jwksUri;
  if (uri === undefined) throw new Error(`client ${client.clientId} has no jwks or jwks_uri`);
  const security = securityOf(state.store, state.now);
  const cached = security.fetchedKeys.get(uri);
  const now = state.now();
  if (cached && now - cached.fetchedAt < (refresh ? REFETCH_AFTER_MS : KEYS_FRESH_MS)) return cached.keys;
  const underWay = security.keyFetches.get(uri);
  if (underWay) return underWay;
  const fetching = fetchJwks(uri, state.config.outbound)
    .then((keys) => {
      security.rememberKeys(uri, { keys, fetchedAt: state.now() });
      return keys;
    })
    .finally(() => security.keyFetches.delete(uri));
  security.keyFetches.set(uri, fetching);
  return fetching;
}

async function fetchJwks(uri: string, policy: AddressPolicy): Promise<JsonWebKey[]> {
  const url = new URL(uri);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) throw new Error(`jwks_uri ${uri} is neither https nor loopback http`);
  const fetched = await fetchBounded(uri, { maxBytes: MAX_JWKS_BYTES, timeoutMs: FETCH_TIMEOUT_MS, policy });
  if (!fetched.ok) throw new Error(fetchProblem(fetched));
  let body: unknown;
  try {
    body = parseJson(fetched.body);
  } catch {
    throw new Error("the client's jwks_uri did not answer JSON (or answered it nested too deep)");
  }
  const keys = (body as { keys?: unknown }).keys;
  if (!Array.isArray(keys)) throw new Error('the client\'s jwks_uri did not answer a JWK Set ({"keys": [...]})');
  // Private or symmetric material published by mistake is never used to verify.
  return keys.filter((k): k is JsonWebKey => typeof k === 'object' && k !== null && !PRIVATE_MEMBERS.some((m) => (k as Record<string, unknown>)[m] !== undefined));
}

function fetchProblem(failure: BoundedFailure): string {
  switch (failure.reason) {
    case 'too-large':
      return `the client's JWK Set is larger than ${MAX_JWKS_BYTES} bytes`;
    case 'timeout':
      return `the client's jwks_uri did not answer within ${FETCH_TIMEOUT_MS / 1000} s (connect to last byte)`;
    case 'redirect':
      return `the client's jwks_uri answered HTTP ${failure.status}: redirects are not followed`;
    case 'status':
      return `the client's jwks_uri answered HTTP ${failure.status}`;
    case 'forbidden':
      return `the client's jwks_uri could not be fetched: ${failure.refusal.message}, which the mock does not call (${OUTBOUND_RULE})`;
    case 'network':
      return "the client's jwks_uri could not be fetched (no connection, or it broke off)";
  }
}

/**
 * Verifies a JWT the client signed (a client assertion, a request object): with its client secret for
 * HS256/384/512, else with its public keys, refetching a jwks_uri once when no key matches. `algorithms`
 * limits the alg; `none` is never accepted. Rejects with jose's error or an Error saying what failed.
 */
export async function verifyClientJwt(state: MockState, client: MockClient, jwt: string, options: JWTVerifyOptions & { algorithms: string[] }): Promise<JWTPayload> {
  const { alg } = decodeProtectedHeader(jwt);
  if (typeof alg !== 'string' || !options.algorithms.includes(alg)) throw new Error(`alg ${JSON.stringify(alg ?? null)} is not accepted here (accepted: ${options.algorithms.join(', ')})`);
  const verifyOptions: JWTVerifyOptions = { ...options, currentDate: new Date(state.now()) };
  if (HMAC_ALGS.includes(alg)) {
    if (client.clientSecret === undefined) throw new Error(`client ${client.clientId} has no client_secret to verify ${alg} with`);
    return (await jwtVerify(jwt, new TextEncoder().encode(client.clientSecret), verifyOptions)).payload;
  }
  const verify = async (refresh: boolean) => (await jwtVerify(jwt, createLocalJWKSet({ keys: (await clientKeys(state, client, refresh)) as JWK[] }), verifyOptions)).payload;
  try {
    return await verify(false);
  } catch (err) {
    if (client.jwksUri === undefined || !(err instanceof errors.JWKSNoMatchingKey)) throw err;
    return verify(true);
  }
}
