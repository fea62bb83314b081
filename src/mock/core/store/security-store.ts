import { randomBytes, type JsonWebKey } from 'node:crypto';
import type { MockClient } from '../config/config.js';
import { ReplayCache } from './replay.js';
import { ExpiringMap } from './expiring-map.js';
import { type AuthorizationRequest, type MockStore } from './store.js';

/** A pushed authorization request (RFC 9126 section 2.2): validated, bound to its client, used once. */
export interface PushedRequestRecord {
  client: MockClient;
  request: AuthorizationRequest;
  expiresAt: number;
}

/** A client's keys fetched from its jwks_uri. */
export interface FetchedKeys {
  keys: JsonWebKey[];
  fetchedAt: number;
}

const MAX_FETCHED_KEY_SETS = 1_000;

/**
 * What PAR, DPoP and the JWT client authentication remember, one per store: the admin API's reset
 * replaces the store (`emptied()`), so it forgets this too.
 */
export class SecurityStore {
  readonly pushedRequests: ExpiringMap<PushedRequestRecord>;
  /** jti of DPoP proofs (RFC 9449 section 11.1). */
  readonly dpopProofs: ReplayCache;
  /** client_id and jti of client assertions (RFC 7523 section 3, item 7). */
  readonly clientAssertions: ReplayCache;
  /** client_id and jti of request objects, for the clients registered with request_object_single_use. */
  readonly requestObjects: ReplayCache;
  /** jwks_uri -> keys. */
  readonly fetchedKeys = new Map<string, FetchedKeys>();
  /** jwks_uri -> the fetch under way: one at a time per URL, shared by every request that waits for it. */
  readonly keyFetches = new Map<string, Promise<JsonWebKey[]>>();
  /** The key of the server's DPoP nonces (RFC 9449 section 8). */
  readonly nonceKey = randomBytes(32);

  /** The bounds are the store's (library option `limits`). */
  constructor(store: MockStore, now: () => number) {
    // At the bound a new push is refused with 503 (StoreFullError); nothing pushed is dropped.
    this.pushedRequests = new ExpiringMap(store.limit('pushedRequests'), now, 'pushed authorization requests');
    this.dpopProofs = new ReplayCache(store.limit('dpopProofs'), now);
    this.clientAssertions = new ReplayCache(store.limit('clientAssertions'), now);
    this.requestObjects = new ReplayCache(store.limit('clientAssertions'), now);
  }

  rememberKeys(uri: string, keys: FetchedKeys): void {
    if (this.fetchedKeys.size >= MAX_FETCHED_KEY_SETS) this.fetchedKeys.delete(this.fetchedKeys.keys().next().value as string);
    this.fetchedKeys.set(uri, keys);
  }
}

const stores = new WeakMap<MockStore, SecurityStore>();

/** The security store of a mock's store, made on first use. */
export function securityOf(store: MockStore, now: () => number): SecurityStore {
  let security = stores.get(store);
  if (!security) stores.set(store, (security = new SecurityStore(store, now)));
  return security;
}
