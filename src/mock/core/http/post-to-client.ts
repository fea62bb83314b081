import { RequestDeadline } from '../../../http/deadline.js';
import { createOutbound } from '../../../http/request.js';
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
 * (Back-Channel Logout 1.0 section 2.5), a CIBA ping (CIBA Core 1.0 section 10.2), through src/http.
 * A redirect is never followed (what is sent goes only where it was registered), the answer's body
 * is never read, the whole exchange is bounded by `timeoutMs`, and an address `policy` forbids is
 * refused before any connection (src/http/address-policy.ts: an IP literal here, a name in the
 * connection's own lookup). Never rejects.
 */
export async function postToClient(uri: string, headers: Record<string, string>, body: string, timeoutMs: number, policy: AddressPolicy): Promise<ClientPostResult> {
  const started = performance.now();
  const done = (result: Omit<ClientPostResult, 'durationMs'>): ClientPostResult => ({ ...result, durationMs: Math.round((performance.now() - started) * 100) / 100 });
  const refusal = (err: ForbiddenAddressError) => done({ status: 0, problem: `could not be delivered: ${err.message}, which the mock does not call (${OUTBOUND_RULE})`, refused: true });
  const literal = checkHost(new URL(uri).hostname, policy);
  if (literal !== undefined) return refusal(literal);
  const outbound = createOutbound({ keepAlive: false, lookup: guardedLookup(policy) });
  const deadline = new RequestDeadline(timeoutMs);
  try {
    return done({ status: (await outbound.send({ url: uri, method: 'POST', headers, body, abort: deadline, maxBytes: 0, readBody: () => false })).status });
  } catch (err) {
    if (err instanceof ForbiddenAddressError) return refusal(err);
    return done({ status: 0, problem: deadline.expired ? `no answer within ${timeoutMs} ms` : 'could not be delivered (no connection, or it broke off)' });
  } finally {
    deadline.clear();
    await outbound.close();
  }
}
