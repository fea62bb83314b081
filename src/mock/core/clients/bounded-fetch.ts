import { get as httpGet, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';
import { get as httpsGet } from 'node:https';

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
  | { ok: false; reason: 'network'; detail: string };

/**
 * GET `url` (http or https) for a 200 answer of at most `maxBytes`, connect to last byte within
 * `timeoutMs` (a body that trickles in is cut at the deadline too). A redirect is refused, never
 * followed: the document must be where it was named (no request steered to another host). A body
 * announced or grown past the cap is cut at once. Never rejects: a failure is a value.
 */
export function fetchBounded(url: string, { maxBytes, timeoutMs }: { maxBytes: number; timeoutMs: number }): Promise<BoundedResponse | BoundedFailure> {
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
    const req = get(url, { headers: { accept: 'application/json' } }, (res: IncomingMessage) => {
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
      res.on('error', (err) => settle({ ok: false, reason: 'network', detail: err.message }));
    });
    const timer = setTimeout(() => settle({ ok: false, reason: 'timeout' }), timeoutMs);
    req.on('error', (err: NodeJS.ErrnoException) => settle({ ok: false, reason: 'network', detail: err.code ?? err.message }));
  });
}
