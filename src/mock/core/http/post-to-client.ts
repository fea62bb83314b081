import type { LookupFunction } from 'node:net';
import { RequestDeadline } from '../../../http/deadline.js';
import { createOutbound } from '../../../http/request.js';

/** What became of a POST the mock sent to a client. */
export interface ClientPostResult {
  /** The answer's status; 0 when none came. */
  status: number;
  /** Why no answer came (a timeout, a refused connection). */
  problem?: string;
  /** How long it took, in milliseconds (two decimals), for the request log. */
  durationMs: number;
}

/**
 * A POST the mock itself sends to a client's registered endpoint: a back-channel logout token
 * (Back-Channel Logout 1.0 section 2.5), a CIBA ping (CIBA Core 1.0 section 10.2), through src/http.
 * A redirect is never followed (what is sent goes only where it was registered), the answer's body
 * is never read, and the whole exchange is bounded by `timeoutMs`. `lookup` decides the address a
 * host name connects to (an address policy). Never rejects.
 */
export async function postToClient(uri: string, headers: Record<string, string>, body: string, timeoutMs: number, lookup?: LookupFunction): Promise<ClientPostResult> {
  const started = performance.now();
  let status = 0;
  let problem: string | undefined;
  const outbound = createOutbound({ keepAlive: false, lookup });
  const deadline = new RequestDeadline(timeoutMs);
  try {
    status = (await outbound.send({ url: uri, method: 'POST', headers, body, abort: deadline, maxBytes: 0, readBody: () => false })).status;
  } catch (err) {
    problem = deadline.expired ? `no answer within ${timeoutMs} ms` : `could not connect: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`;
  } finally {
    deadline.clear();
    await outbound.close();
  }
  return { status, ...(problem !== undefined && { problem }), durationMs: Math.round((performance.now() - started) * 100) / 100 };
}
