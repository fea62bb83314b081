import { get as httpGet, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';
import { checkHost, ForbiddenAddressError, guardedLookup, type AddressPolicy } from '../../../http/address-policy.js';

/** A small JSON document the mock fetches from a client (its jwks_uri, its client ID metadata document). */
export interface BoundedResponse {
  ok: true;
  body: string;
  headers: IncomingHttpHeaders;
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
 * GET `url` (http or https) for a 200 answer of at most `maxBytes`, connect to last byte within
 * `timeoutMs` (a body that trickles in is cut at the deadline too). A redirect is refused, never
 * followed: the document must be where it was named (no request steered to another host). A body
 * announced or grown past the cap is cut at once. An address `policy` forbids is refused before any
 * connection: an IP literal here, a name in the lookup the connection makes (address-policy.ts).
 * Never rejects: a failure is a value.
 */
export function fetchBounded(url: string, { maxBytes, timeoutMs, policy }: { maxBytes: number; timeoutMs: number; policy: AddressPolicy }): Promise<BoundedResponse | BoundedFailure> {
  const literal = checkHost(new URL(url).hostname, policy);
  if (literal !== undefined) return Promise.resolve({ ok: false, reason: 'forbidden', refusal: literal });
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: BoundedResponse | BoundedFailure) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (!result.ok) req.destroy();
      resolve(result);
    };
    const get = url.startsWith('https:') ? httpsGet : httpGet;
    const req = get(url, { headers: { accept: 'application/json' }, lookup: guardedLookup(policy) }, (res: IncomingMessage) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400) return settle({ ok: false, reason: 'redirect', status });
      if (status !== 200) return settle({ ok: false, reason: 'status', status });
      if (Number(res.headers['content-length']) > maxBytes) return settle({ ok: false, reason: 'too-large' });
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > maxBytes) settle({ ok: false, reason: 'too-large' });
        else chunks.push(chunk);
      });
      res.on('end', () => settle({ ok: true, body: Buffer.concat(chunks).toString('utf8'), headers: res.headers }));
      res.on('error', () => settle({ ok: false, reason: 'network' }));
    });
    const timer = setTimeout(() => settle({ ok: false, reason: 'timeout' }), timeoutMs);
    req.on('error', (err) => settle(err instanceof ForbiddenAddressError ? { ok: false, reason: 'forbidden', refusal: err } : { ok: false, reason: 'network' }));
  });
}
