import { isJsonObject, JsonDepthError, MAX_JSON_DEPTH, parseJson } from '../../../oauth/json.js';
import { fetchBounded, type BoundedFailure } from './bounded-fetch.js';
import { OUTBOUND_RULE } from '../config/config-outbound.js';
import type { AddressPolicy } from '../../../http/address-policy.js';
import { checkClientMetadata } from './client-metadata.js';
import type { MockClient } from '../config/config.js';
import { queryParams, sendOAuthError, type Exchange, type MockState } from '../http/http.js';
import { isLoopbackHost } from '../../../oauth/loopback.js';
import { errorPage, sendPage } from '../pages/pages.js';

/**
 * Client ID Metadata Documents (draft-ietf-oauth-client-id-metadata-document): a client_id that is an
 * https URL names a JSON document of the client's metadata, which the server fetches. The fetch is
 * strict: a size cap, one time cap for connect and the whole body, no redirects, a cache that honours
 * Cache-Control, and one fetch in flight per URL however many requests name it.
 */
export const MAX_DOCUMENT_BYTES = 5 * 1024;
export const FETCH_TIMEOUT_MS = 3000;
/** The longest a document is kept, whatever its max-age; without Cache-Control, this long. */
const MAX_CACHE_SECONDS = 24 * 3600;
const DEFAULT_CACHE_SECONDS = 60;
/** Documents (and the clients made from them) kept at once; the oldest goes first. */
const MAX_DOCUMENTS = 100;

class DocumentError extends Error {}

interface Cached {
  client: MockClient;
  expiresAt: number;
}
interface Documents {
  cache: Map<string, Cached>;
  inFlight: Map<string, Promise<MockClient>>;
}
const perIssuer = new WeakMap<object, Documents>();
function documentsOf(state: MockState): Documents {
  let d = perIssuer.get(state.config);
  if (!d) perIssuer.set(state.config, (d = { cache: new Map(), inFlight: new Map() }));
  return d;
}

/** An https URL with a path (or an http loopback one when the configuration allows it, for tests). */
export function isMetadataDocumentUrl(clientId: string, allowHttpLoopback: boolean): boolean {
  let url: URL;
  try {
    url = new URL(clientId);
  } catch {
    return false;
  }
  if (url.pathname === '/' || url.hash || url.username || url.password) return false;
  return url.protocol === 'https:' || (allowHttpLoopback && url.protocol === 'http:' && isLoopbackHost(url.hostname));
}

/** Cache-Control (RFC 9111 section 5.2.2): seconds the document may be kept; 0 for no-store, no-cache or max-age=0. */
function freshFor(header: string | undefined): number {
  if (header === undefined) return DEFAULT_CACHE_SECONDS;
  if (/(^|,)\s*(no-store|no-cache|private)\s*(,|$|=)/i.test(header)) return 0;
  const maxAge = /(^|,)\s*max-age\s*=\s*"?(\d+)"?/i.exec(header);
  return maxAge ? Math.min(Number(maxAge[2]), MAX_CACHE_SECONDS) : DEFAULT_CACHE_SECONDS;
}

/** GET the document: 200 only (a redirect is refused, not followed), at most MAX_DOCUMENT_BYTES, all within FETCH_TIMEOUT_MS. */
async function fetchDocument(url: string, policy: AddressPolicy): Promise<{ body: string; cacheControl?: string }> {
  const fetched = await fetchBounded(url, { maxBytes: MAX_DOCUMENT_BYTES, timeoutMs: FETCH_TIMEOUT_MS, policy });
  if (!fetched.ok) throw new DocumentError(fetchProblem(fetched));
  const cacheControl = fetched.headers['cache-control'];
  return { body: fetched.body, ...(typeof cacheControl === 'string' && { cacheControl }) };
}

function fetchProblem(failure: BoundedFailure): string {
  switch (failure.reason) {
    case 'too-large':
      return `is larger than ${MAX_DOCUMENT_BYTES} bytes`;
    case 'timeout':
      return `took longer than ${FETCH_TIMEOUT_MS} ms`;
    case 'redirect':
      return `answered HTTP ${failure.status}: redirects are not followed`;
    case 'status':
      return `answered HTTP ${failure.status}`;
    case 'forbidden':
      return `could not be fetched: ${failure.refusal.message}, which the mock does not call (${OUTBOUND_RULE})`;
    case 'network':
      return 'could not be fetched (no connection, or it broke off)';
  }
}

/** The client a document describes: its client_id is the URL, its redirect URIs exact, no shared secret. */
function clientOf(state: MockState, url: string, body: string): MockClient {
  let doc: unknown;
  try {
    doc = parseJson(body);
  } catch (err) {
    throw new DocumentError(err instanceof JsonDepthError ? `is nested more than ${MAX_JSON_DEPTH} levels deep: refused (no client metadata nests so deep)` : 'is not JSON');
  }
  if (!isJsonObject(doc)) throw new DocumentError('is not a JSON object');
  if (doc.client_id !== url) throw new DocumentError(`has client_id ${JSON.stringify(doc.client_id)}, not its own URL`);
  if (doc.client_secret !== undefined || doc.client_secret_expires_at !== undefined)
    throw new DocumentError('holds a client_secret: a document is public, its client authenticates with none or private_key_jwt');
  const method = doc.token_endpoint_auth_method ?? 'none';
  if (method !== 'none' && method !== 'private_key_jwt')
    throw new DocumentError(`token_endpoint_auth_method ${JSON.stringify(method)}: only none and private_key_jwt are possible without a shared secret`);
  if (!Array.isArray(doc.redirect_uris) || doc.redirect_uris.length === 0) throw new DocumentError('has no redirect_uris');
  const checked = checkClientMetadata({ ...doc, grant_types: doc.grant_types ?? ['authorization_code', 'refresh_token'] }, url, undefined, state.config.scopes, 'none');
  if (!checked.ok) throw new DocumentError(`${checked.error}: ${checked.description}`);
  return checked.client;
}

/** Fetches (or takes from the cache) the client of a metadata document URL and installs it among the clients. */
export async function resolveDocumentClient(state: MockState, url: string): Promise<MockClient> {
  const docs = documentsOf(state);
  const cached = docs.cache.get(url);
  if (cached && cached.expiresAt > state.now()) return cached.client;
  const running = docs.inFlight.get(url);
  if (running) return running;
  const fetching = fetchDocument(url, state.config.outbound).then(({ body, cacheControl }) => {
    const client = clientOf(state, url, body);
    const clients = state.config.clients as Map<string, MockClient>;
    docs.cache.delete(url);
    docs.cache.set(url, { client, expiresAt: state.now() + freshFor(cacheControl) * 1000 });
    clients.set(url, client);
    for (const oldest of docs.cache.keys()) {
      if (docs.cache.size <= MAX_DOCUMENTS) break;
      docs.cache.delete(oldest);
      clients.delete(oldest);
    }
    return client;
  });
  docs.inFlight.set(url, fetching);
  try {
    return await fetching;
  } finally {
    docs.inFlight.delete(url);
  }
}

/** Whether this client_id is to be resolved from its document: a document URL, and not a configured client. */
function namesDocument(state: MockState, clientId: string | null | undefined): clientId is string {
  if (clientId === null || clientId === undefined || state.config.mcp.clients === 'registration') return false;
  const configured = state.config.clients.has(clientId) && !documentsOf(state).cache.has(clientId);
  return !configured && isMetadataDocumentUrl(clientId, state.config.clientIdMetadataDocuments.allowHttpLoopback);
}

/**
 * PAR (RFC 9126) with metadata documents: the client_id of the pushed form is resolved first; false
 * when its document cannot be used (then the RFC 6749 section 5.2 error, invalid_client, is sent).
 */
export async function resolveFormClient(ex: Exchange, clientId: string | undefined): Promise<boolean> {
  if (!namesDocument(ex.state, clientId)) return true;
  try {
    await resolveDocumentClient(ex.state, clientId);
    return true;
  } catch (err) {
    if (!(err instanceof DocumentError)) throw err;
    sendOAuthError(ex, 401, 'invalid_client', `the client ID metadata document ${err.message}`);
    return false;
  }
}

/**
 * The authorization endpoint with metadata documents: a client_id that names one is resolved first;
 * a document that cannot be used gets the error page (never a redirect: its redirect URIs are unknown).
 */
export function resolvingClientIdDocuments(handler: (ex: Exchange) => void | Promise<void>): (ex: Exchange) => Promise<void> {
  return async (ex) => {
    const clientId = queryParams(ex).values.get('client_id');
    // A configured client whose id looks like a URL stays the configured one.
    if (namesDocument(ex.state, clientId)) {
      try {
        await resolveDocumentClient(ex.state, clientId);
      } catch (err) {
        if (!(err instanceof DocumentError)) throw err;
        ex.log.clientId = clientId;
        ex.log.error = 'invalid_client';
        ex.log.errorDescription = `client ID metadata document ${err.message}`;
        return sendPage(
          ex.res,
          400,
          'Unknown client',
          errorPage('Unknown client', `The client ID metadata document at ${clientId} ${err.message}.`, 'The client must publish its metadata there, with client_id equal to the URL.'),
        );
      }
    }
    await handler(ex);
  };
}
