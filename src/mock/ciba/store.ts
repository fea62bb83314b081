import type { CibaDeliveryMode } from '../../oauth/ciba.js';
import type { PollPace } from '../../oauth/polling.js';
import { ExpiringMap } from '../core/store/expiring-map.js';
import type { MockStore, SessionRecord } from '../core/store/store.js';

/** A backchannel authentication request (CIBA Core 1.0 section 7) and what became of it. */
export interface CibaRequestRecord extends PollPace {
  clientId: string;
  /** The user the hint resolved to (section 7.1). */
  username: string;
  scopes: string[];
  bindingMessage?: string;
  acrValues?: string[];
  mode: CibaDeliveryMode;
  /** Ping mode: the bearer token the notification carries (section 10.2). */
  notificationToken?: string;
  /** When the auth_req_id stops working (ms); the record is kept a while longer, to answer expired_token. */
  requestExpiresAt: number;
  expiresAt: number;
  status: 'pending' | 'approved' | 'denied' | 'redeemed';
  authTime?: number;
  session?: SessionRecord;
  /** The id the approval page's forms name the request by: never the auth_req_id, which is the client's secret. */
  pageId: string;
}

const stores = new WeakMap<MockStore, ExpiringMap<CibaRequestRecord>>();

/** The CIBA requests of a mock's store (auth_req_id -> record), made on first use; the admin API's reset makes a new store, which forgets them. */
export function cibaRequests(store: MockStore, now: () => number): ExpiringMap<CibaRequestRecord> {
  let requests = stores.get(store);
  if (!requests) stores.set(store, (requests = new ExpiringMap(store.limit('deviceCodes'), now, 'backchannel authentication requests')));
  return requests;
}

/** The request a page form names, with its auth_req_id. */
export function findByPageId(requests: ExpiringMap<CibaRequestRecord>, pageId: string): [string, CibaRequestRecord] | undefined {
  for (const entry of requests.entries()) if (entry[1].pageId === pageId) return entry;
  return undefined;
}
