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
 * (Back-Channel Logout 1.0 section 2.5), a CIBA ping (CIBA Core 1.0 section 10.2). A redirect is
 * never followed (what is sent goes only where it was registered), the answer's body is never read,
 * and the whole exchange is bounded by `timeoutMs`. Never rejects.
 */
export async function postToClient(uri: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<ClientPostResult> {
  const started = performance.now();
  let status = 0;
  let problem: string | undefined;
  try {
    const res = await fetch(uri, { method: 'POST', headers, body, redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    status = res.status;
    await res.body?.cancel();
  } catch (err) {
    problem = (err as Error).name === 'TimeoutError' ? `no answer within ${timeoutMs} ms` : `could not connect: ${(err as Error).message}`;
  }
  return { status, ...(problem !== undefined && { problem }), durationMs: Math.round((performance.now() - started) * 100) / 100 };
}
