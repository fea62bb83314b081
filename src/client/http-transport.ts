import { Agent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http';

/** One request as a transport sends it; the response read whole, up to `maxBytes`. */
export interface TransportRequest {
  url: string;
  method: string;
  headers: Record<string, string>;
  body?: string | undefined;
  /** Aborts the request at any point, the body included (the client's deadline). */
  signal: AbortSignal;
  maxBytes: number;
}

export interface TransportResponse {
  status: number;
  /** Lower-case names; repeated headers joined with ", " (set-cookie with "\n"). */
  headers: Record<string, string>;
  body: string;
}

export interface Transport {
  send(request: TransportRequest): Promise<TransportResponse>;
  close(): Promise<void>;
}

export class ResponseTooLarge extends Error {
  constructor(maxBytes: number) {
    super(`response larger than ${maxBytes} bytes`);
  }
}

/**
 * The common case, no proxy: node:http, and node:https loaded only for an https URL. Much cheaper to
 * load than undici, which a short command pays for on every run. Extra CAs from NODE_EXTRA_CA_CERTS
 * are in Node's default trust store already.
 */
export function createNodeTransport(options: { insecure?: boolean | undefined; clientCertificate?: { cert: string; key: string } | undefined }): Transport {
  const agents: { http: Agent; https?: Agent } = { http: new Agent({ keepAlive: true }) };

  async function requester(url: URL): Promise<{ request: typeof httpRequest; agent: Agent }> {
    if (url.protocol !== 'https:') return { request: httpRequest, agent: agents.http };
    const https = await import('node:https');
    agents.https ??= new https.Agent({ keepAlive: true, rejectUnauthorized: options.insecure !== true, ...options.clientCertificate });
    return { request: https.request, agent: agents.https };
  }

  async function send(req: TransportRequest): Promise<TransportResponse> {
    const url = new URL(req.url);
    const { request, agent } = await requester(url);
    const headers: Record<string, string> = { ...req.headers };
    if (req.body !== undefined && !Object.keys(headers).some((n) => n.toLowerCase() === 'content-length')) {
      headers['content-length'] = String(Buffer.byteLength(req.body));
    }
    return new Promise<TransportResponse>((resolve, reject) => {
      if (req.signal.aborted) {
        reject(req.signal.reason);
        return;
      }
      const outgoing = request(url, { method: req.method, headers, agent });
      const onAbort = () => fail(req.signal.reason);
      const fail = (err: unknown) => {
        req.signal.removeEventListener('abort', onAbort);
        outgoing.destroy();
        reject(err);
      };
      req.signal.addEventListener('abort', onAbort, { once: true });
      outgoing.on('error', fail);
      outgoing.on('response', (res: IncomingMessage) => {
        const chunks: Buffer[] = [];
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          size += chunk.length;
          if (size > req.maxBytes) fail(new ResponseTooLarge(req.maxBytes));
          else chunks.push(chunk);
        });
        res.on('error', fail);
        res.on('close', () => {
          if (!res.complete) fail(Object.assign(new Error('the server closed the connection mid-response'), { code: 'ECONNRESET' }));
        });
        res.on('end', () => {
          req.signal.removeEventListener('abort', onAbort);
          resolve({ status: res.statusCode ?? 0, headers: flattenHeaders(res.headers), body: Buffer.concat(chunks).toString('utf8') });
        });
      });
      outgoing.end(req.body);
    });
  }

  return {
    send,
    close: async () => {
      agents.http.destroy();
      agents.https?.destroy();
    },
  };
}

export function flattenHeaders(headers: IncomingHttpHeaders | Record<string, string | string[] | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    const key = name.toLowerCase();
    out[key] = Array.isArray(value) ? value.join(key === 'set-cookie' ? '\n' : ', ') : value;
  }
  return out;
}
