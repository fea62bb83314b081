import type { JsonWebKey } from 'node:crypto';
import { createLocalJWKSet, decodeProtectedHeader, errors, jwtVerify, type JWK, type JWTPayload, type JWTVerifyOptions } from 'jose';
import { HMAC_ALGS, isLoopbackHost } from './config-security.js';
import type { MockClient } from './config.js';
import type { MockState } from './http.js';
import { securityOf } from './security-store.js';

const FETCH_TIMEOUT_MS = 5000;
const MAX_JWKS_BYTES = 64 * 1024;
/** Fetched keys are used this long; a key that is not found refetches at most this often. */
const KEYS_FRESH_MS = 5 * 60 * 1000;
const REFETCH_AFTER_MS = 10 * 1000;
const PRIVATE_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k'];

/**
 * The client's public keys (RFC 7591 section 2): `jwks` from the configuration, or `jwks_uri` fetched
 * (https or loopback http only, no redirects, 5 s, 64 KiB) and kept a while. `refresh` asks for a new
 * copy of a fetched set when a key was not found in it (key rotation), at most every 10 s.
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
  const keys = await fetchJwks(uri);
  security.rememberKeys(uri, { keys, fetchedAt: now });
  return keys;
}

async function fetchJwks(uri: string): Promise<JsonWebKey[]> {
  const url = new URL(uri);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && isLoopbackHost(url.hostname))) throw new Error(`jwks_uri ${uri} is neither https nor loopback http`);
  let response: Response;
  try {
    response = await fetch(url, { redirect: 'error', signal: AbortSignal.timeout(FETCH_TIMEOUT_MS), headers: { Accept: 'application/json' } });
  } catch (err) {
    throw new Error(`the client's jwks_uri could not be fetched (${err instanceof Error ? err.message : String(err)})`, { cause: err });
  }
  if (!response.ok) throw new Error(`the client's jwks_uri answered HTTP ${response.status}`);
  const text = await readLimited(response);
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    throw new Error("the client's jwks_uri did not answer JSON");
  }
  const keys = (body as { keys?: unknown }).keys;
  if (!Array.isArray(keys)) throw new Error('the client\'s jwks_uri did not answer a JWK Set ({"keys": [...]})');
  // Private or symmetric material published by mistake is never used to verify.
  return keys.filter((k): k is JsonWebKey => typeof k === 'object' && k !== null && !PRIVATE_MEMBERS.some((m) => (k as Record<string, unknown>)[m] !== undefined));
}

async function readLimited(response: Response): Promise<string> {
  if (Number(response.headers.get('content-length')) > MAX_JWKS_BYTES) throw new Error(`the client's JWK Set is larger than ${MAX_JWKS_BYTES} bytes`);
  const reader = response.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.length;
    if (size > MAX_JWKS_BYTES) {
      await reader.cancel();
      throw new Error(`the client's JWK Set is larger than ${MAX_JWKS_BYTES} bytes`);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
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
