import { request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { checkHost, ForbiddenAddressError, guardedLookup, type AddressPolicy } from '../../../http/address-policy.js';
import { OUTBOUND_RULE } from '../config/config-outbound.js';

/** What became of a POST the mock sent to a client. */
export interface ClientPostResult {
  /** The answer's status; 0 when none came. */
  status: number;
  /** Why no answer came (a timeout, no connection, an address the policy refuses); never the network's own error text. */
  problem?: string;
  /** The address policy refused the endpoint before any connection: trying again cannot help. */
  refused?: true;
  /** How long it took, in milliseconds (two decimals), for the request log. */
  durationMs: number;
}

/**
 * A POST the mock itself sends to a client's registered endpoint: a back-channel logout token
 * (Back-Channel Logout 1.0 section 2.5), a CIBA ping (CIBA Core 1.0 section 10.2). A redirect is
 * never followed (what is sent goes only where it was registered), the answer's body is never read,
 * the whole exchange is bounded by `timeoutMs`, and an address `policy` forbids is refused before any
 * connection (src/http/address-policy.ts: an IP literal here, a name in the connection's own lookup).
 * Never rejects.
 */
export async function postToClient(uri: string, headers: Record<string, string>, body: string, timeoutMs: number, policy: AddressPolicy): Promise<ClientPostResult> {
  const started = performance.now();
  const done = (result: Omit<ClientPostResult, 'durationMs'>): ClientPostResult => ({ ...result, durationMs: Math.round((performance.now() - started) * 100) / 100 });
  const refusal = (err: ForbiddenAddressError) => done({ status: 0, problem: `could not be delivered: ${err.message}, which the mock does not call (${OUTBOUND_RULE})`, refused: true });
  const literal = checkHost(new URL(uri).hostname, policy);
  if (literal !== undefined) return refusal(literal);
  return new Promise((resolve) => {
    let settled = false;
    const settle = (result: ClientPostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      req.destroy();
      resolve(result);
    };
    const send = uri.startsWith('https:') ? httpsRequest : httpRequest;
    const req = send(uri, { method: 'POST', headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) }, lookup: guardedLookup(policy) }, (res) => {
      res.resume();
      settle(done({ status: res.statusCode ?? 0 }));
    });
    const timer = setTimeout(() => settle(done({ status: 0, problem: `no answer within ${timeoutMs} ms` })), timeoutMs);
    req.on('error', (err) => settle(err instanceof ForbiddenAddressError ? refusal(err) : done({ status: 0, problem: 'could not be delivered (no connection, or it broke off)' })));
    req.end(body);
  });
}
