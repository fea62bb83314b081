import { EnvHttpProxyAgent, request as undiciRequest, type Dispatcher } from 'undici';
import { flattenHeaders, ResponseTooLarge, type Transport, type TransportRequest, type TransportResponse } from './http-transport.js';

export interface ProxySettings {
  httpProxy: string;
  httpsProxy: string;
  noProxy: string;
}

/**
 * Through a proxy: undici's EnvHttpProxyAgent (HTTPS_PROXY / HTTP_PROXY / NO_PROXY as given). Loaded
 * only when a proxy is set, since loading undici costs more than a short command's whole request.
 */
export function createUndiciTransport(options: { insecure?: boolean | undefined; clientCertificate?: { cert: string; key: string } | undefined; proxy: ProxySettings; timeoutMs: number }): Transport {
  const verify = options.insecure ? { rejectUnauthorized: false } : {};
  // Mutual TLS (RFC 8705): the client certificate goes to the server, never to the proxy.
  const tls = { ...verify, ...options.clientCertificate };
  const dispatcher: Dispatcher = new EnvHttpProxyAgent({
    ...options.proxy,
    headersTimeout: options.timeoutMs,
    bodyTimeout: options.timeoutMs,
    connect: { ...tls, timeout: options.timeoutMs },
    requestTls: tls,
    proxyTls: verify,
  } as ConstructorParameters<typeof EnvHttpProxyAgent>[0]);

  async function send(req: TransportRequest): Promise<TransportResponse> {
    const res = await undiciRequest(req.url, {
      dispatcher,
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      signal: req.abort.signal,
      ...(req.body !== undefined ? { body: req.body } : {}),
    });
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > req.maxBytes) {
        res.body.destroy();
        throw new ResponseTooLarge(req.maxBytes);
      }
      chunks.push(chunk as Buffer);
      if (req.enough !== undefined) {
        const headers = flattenHeaders(res.headers);
        if (req.enough(res.statusCode, headers, Buffer.concat(chunks))) {
          res.body.destroy();
          return { status: res.statusCode, headers, body: Buffer.concat(chunks).toString('utf8') };
        }
      }
    }
    return { status: res.statusCode, headers: flattenHeaders(res.headers), body: Buffer.concat(chunks).toString('utf8') };
  }

  return { send, close: () => dispatcher.close() };
}
