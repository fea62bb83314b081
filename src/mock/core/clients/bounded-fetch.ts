import { RequestDeadline } from '../../../http/deadline.js';
import { ResponseTooLarge } from '../../../http/outbound.js';
import { createOutbound } from '../../../http/request.js';
import { checkHost, ForbiddenAddressError, guardedLookup, type AddressPolicy } from '../../../http/address-policy.js';

/** A small JSON document the mock fetches from a client (its jwks_uri, its client ID metadata document). */
export interface BoundedResponse {
  ok: true;
  body: string;
  /** Lower-case names, repeated fields joined. */
  headers: Record<string, string>;
}

/** Why a bounded fetch gave nothing: each caller says it in its own words. */
export type BoundedFailure =
  | { ok: false; reason: 'too-large' }
  | { ok: false; reason: 'timeout' }
  | { ok: false; reason: 'redirect'; status: number }
  | { ok: false; reason: 'status'; status: number }
  | { ok: false; reason: 'forbidden'; refusal: ForbiddenAddressError }
  /** The network's own error is not kept: what a client is told never maps the mock's network (no port scanner). */
  | { ok: false; reason: 'network' };

/**
 * GET `url` (http or https, through src/http) for a 200 answer of at most `maxBytes`, connect to
 * last byte within `timeoutMs` (a body that trickles in is cut at the deadline too). A redirect is
 * refused, never followed: the document must be where it was named (no request steered to another
 * host). A body announced or grown past the cap is cut at once. An address `policy` forbids is
 * refused before any connection: an IP literal here, a name in the lookup the connection makes
 * (address-policy.ts). Never rejects: a failure is a value.
 */
export async function fetchBounded(url: string, { maxBytes, timeoutMs, policy }: { maxBytes: number; timeoutMs: number; policy: AddressPolicy }): Promise<BoundedResponse | BoundedFailure> {
  const literal = checkHost(new URL(url).hostname, policy);
  if (literal !== undefined) return { ok: false, reason: 'forbidden', refusal: literal };
  const outbound = createOutbound({ keepAlive: false, lookup: guardedLookup(policy) });
  const deadline = new RequestDeadline(timeoutMs);
  try {
    const res = await outbound.send({ url, method: 'GET', headers: { accept: 'application/json' }, abort: deadline, maxBytes, readBody: (status) => status === 200 });
    if (res.status >= 300 && res.status < 400) return { ok: false, reason: 'redirect', status: res.status };
    if (res.status !== 200) return { ok: false, reason: 'status', status: res.status };
    return { ok: true, body: res.body, headers: res.headers };
  } catch (err) {
    if (deadline.expired) return { ok: false, reason: 'timeout' };
    if (err instanceof ResponseTooLarge) return { ok: false, reason: 'too-large' };
    if (err instanceof ForbiddenAddressError) return { ok: false, reason: 'forbidden', refusal: err };
    return { ok: false, reason: 'network' };
  } finally {
    deadline.clear();
    await outbound.close();
  }
}
