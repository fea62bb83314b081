import type { LookupFunction } from 'node:net';
import { RequestDeadline } from '../../../http/deadline.js';
import { ResponseTooLarge } from '../../../http/outbound.js';
import { createOutbound } from '../../../http/request.js';

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
  | { ok: false; reason: 'network'; detail: string };

/**
 * GET `url` (http or https, through src/http) for a 200 answer of at most `maxBytes`, connect to
 * last byte within `timeoutMs` (a body that trickles in is cut at the deadline too). A redirect is
 * refused, never followed: the document must be where it was named (no request steered to another
 * host). A body announced or grown past the cap is cut at once. `lookup` decides the address a host
 * name connects to (an address policy). Never rejects: a failure is a value.
 */
export async function fetchBounded(url: string, { maxBytes, timeoutMs, lookup }: { maxBytes: number; timeoutMs: number; lookup?: LookupFunction }): Promise<BoundedResponse | BoundedFailure> {
  const outbound = createOutbound({ keepAlive: false, lookup });
  const deadline = new RequestDeadline(timeoutMs);
  try {
    const res = await outbound.send({ url, method: 'GET', headers: { accept: 'application/json' }, abort: deadline, maxBytes, readBody: (status) => status === 200 });
    if (res.status >= 300 && res.status < 400) return { ok: false, reason: 'redirect', status: res.status };
    if (res.status !== 200) return { ok: false, reason: 'status', status: res.status };
    return { ok: true, body: res.body, headers: res.headers };
  } catch (err) {
    if (deadline.expired) return { ok: false, reason: 'timeout' };
    if (err instanceof ResponseTooLarge) return { ok: false, reason: 'too-large' };
    return { ok: false, reason: 'network', detail: (err as NodeJS.ErrnoException).code ?? (err as Error).message };
  } finally {
    deadline.clear();
    await outbound.close();
  }
}
