import { EnvHttpProxyAgent, request as undiciRequest, type Dispatcher } from 'undici';
import { flattenHeaders, ResponseTooLarge, type Outbound, type OutboundOptions, type OutboundRequest, type OutboundResponse, type ProxySettings } from './outbound.js';

/**
 * Through a proxy: undici's EnvHttpProxyAgent (HTTPS_PROXY / HTTP_PROXY / NO_PROXY as given), with
 * the same rules as src/http/request.ts: one deadline (the caller's abort), the body bounded, no
 * redirect followed. Loaded only when a proxy is set.
 */
export function createProxiedOutbound(options: OutboundOptions & { proxy: ProxySettings }): Outbound {
  const verify = options.insecure ? { rejectUnauthorized: false } : {};
  // Mutual TLS (RFC 8705): the client certificate goes to the server, never to the proxy.
  const tls = { ...verify, ...options.clientCertificate };
  const timeouts = options.timeoutMs !== undefined ? { headersTimeout: options.timeoutMs, bodyTimeout: options.timeoutMs } : {};
  const lookup = options.lookup !== undefined ? { lookup: options.lookup } : {};
  const dispatcher: Dispatcher = new EnvHttpProxyAgent({
    ...options.proxy,
    ...timeouts,
    connect: { ...tls, ...lookup, ...(options.timeoutMs !== undefined && { timeout: options.timeoutMs }) },
    requestTls: tls,
    proxyTls: verify,
  } as ConstructorParameters<typeof EnvHttpProxyAgent>[0]);

  async function send(req: OutboundRequest): Promise<OutboundResponse> {
    const res = await undiciRequest(req.url, {
      dispatcher,
      method: req.method as Dispatcher.HttpMethod,
      headers: req.headers,
      signal: req.abort.signal,
      ...(req.body !== undefined ? { body: req.body } : {}),
    });
    const headers = flattenHeaders(res.headers);
    if (req.readBody !== undefined && !req.readBody(res.statusCode)) {
      res.body.destroy();
      return { status: res.statusCode, headers, body: '' };
    }
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += (chunk as Buffer).length;
      if (size > req.maxBytes) {
        res.body.destroy();
        throw new ResponseTooLarge(req.maxBytes);
      }
      chunks.push(chunk as Buffer);
      if (req.enough !== undefined && req.enough(res.statusCode, headers, Buffer.concat(chunks))) {
        res.body.destroy();
        break;
      }
    }
    return { status: res.statusCode, headers, body: Buffer.concat(chunks).toString('utf8') };
  }

  return { send, close: () => dispatcher.close() };
}
