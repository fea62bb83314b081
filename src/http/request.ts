import type { Agent, ClientRequest, IncomingMessage, RequestOptions } from 'node:http';
import type { LookupFunction } from 'node:net';
import { flattenHeaders, ResponseTooLarge, type Outbound, type OutboundOptions, type OutboundRequest, type OutboundResponse, type ProxySettings } from './outbound.js';

/**
 * Outbound HTTP: Node's own http and https (llhttp reads the answers, Node validates what is sent:
 * ERR_INVALID_CHAR for a field value with CR or LF, Basic credentials from a URL's userinfo), loaded
 * when the first request is made; behind a proxy, undici's EnvHttpProxyAgent (src/http/proxy.ts, with
 * NO_PROXY). A redirect is never followed: the answer is returned as it came. Extra CAs from
 * NODE_EXTRA_CA_CERTS need nothing here: Node adds them to the default trust store at start-up.
 */
export function createOutbound(options: OutboundOptions = {}): Outbound {
  const proxy = options.proxy;
  if (proxy !== undefined && (proxy.httpProxy !== '' || proxy.httpsProxy !== '')) return proxied(options, proxy);
  const keepAlive = options.keepAlive !== false;
  const agents: { http?: Agent; https?: Agent } = {};

  async function requester(protocol: string): Promise<{ request: (url: URL, options: RequestOptions) => ClientRequest; agent: Agent }> {
    if (protocol === 'https:') {
      const https = await import('node:https');
      agents.https ??= new https.Agent({ keepAlive, rejectUnauthorized: options.insecure !== true, ...options.clientCertificate });
      return { request: https.request, agent: agents.https };
    }
    // Any other scheme goes to node:http, which refuses it (ERR_INVALID_PROTOCOL) before connecting.
    const http = await import('node:http');
    agents.http ??= new http.Agent({ keepAlive });
    return { request: http.request, agent: agents.http };
  }

  async function send(req: OutboundRequest): Promise<OutboundResponse> {
    const url = new URL(req.url);
    const { request, agent } = await requester(url.protocol);
    try {
      return await sendOnce(request, agent, url, req, options.lookup);
    } catch (err) {
      if (!(err instanceof StaleConnection)) throw err;
      // A kept-alive connection the server had closed without saying so (no Connection: close), found
      // out as the request was written: sent once more, once, on a fresh connection, as Node's
      // documentation of request.reusedSocket advises. The other idle ones are likely closed too: dropped.
      for (const sockets of Object.values(agent.freeSockets)) for (const socket of sockets ?? []) socket.destroy();
      return sendOnce(request, agent, url, req, options.lookup);
    }
  }

  return {
    send,
    close: async () => {
      agents.http?.destroy();
      agents.https?.destroy();
    },
  };
}

/** A request on a reused connection that the server closed or reset before an answer's head came. */
class StaleConnection extends Error {}

function sendOnce(request: (url: URL, options: RequestOptions) => ClientRequest, agent: Agent, url: URL, req: OutboundRequest, lookup: LookupFunction | undefined): Promise<OutboundResponse> {
  return new Promise<OutboundResponse>((resolve, reject) => {
    if (req.abort.aborted) {
      reject(req.abort.reason);
      return;
    }
    let outgoing: ClientRequest;
    try {
      outgoing = request(url, { method: req.method, headers: req.headers, agent, ...(lookup !== undefined && { lookup }) });
    } catch (err) {
      reject(err);
      return;
    }
    let settled = false;
    const settle = (then: () => void): void => {
      if (settled) return;
      settled = true;
      unsubscribe();
      then();
    };
    const fail = (err: unknown): void =>
      settle(() => {
        outgoing.destroy();
        reject(err);
      });
    const unsubscribe = req.abort.onAbort(fail);
    let answered = false;
    outgoing.on('error', (err: NodeJS.ErrnoException) => {
      const stale = !answered && outgoing.reusedSocket && (err.code === 'ECONNRESET' || err.code === 'EPIPE') && !req.abort.aborted;
      fail(stale ? new StaleConnection(err.message) : err);
    });
    outgoing.on('response', (res: IncomingMessage) => {
      answered = true;
      const status = res.statusCode ?? 0;
      const headers = flattenHeaders(res.headers);
      if (req.readBody !== undefined && !req.readBody(status)) {
        settle(() => {
          outgoing.destroy();
          resolve({ status, headers, body: '' });
        });
        return;
      }
      // A body announced past the limit is refused before a byte of it is read.
      if (Number(res.headers['content-length']) > req.maxBytes) {
        fail(new ResponseTooLarge(req.maxBytes));
        return;
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (settled) {
          // The answer came (enough): the rest is drained, within the same limit, for the connection's sake.
          if (size > req.maxBytes) outgoing.destroy();
          return;
        }
        if (size > req.maxBytes) return fail(new ResponseTooLarge(req.maxBytes));
        chunks.push(chunk);
        if (req.enough === undefined) return;
        const sofar = Buffer.concat(chunks);
        if (req.enough(status, headers, sofar))
          settle(() => {
            resolve({ status, headers, body: sofar.toString('utf8') });
            closeUnlessEnding(outgoing, res);
          });
      });
      // A body cut short (fewer bytes than framed, a chunked body without its last chunk) is never taken for the whole.
      const truncated = (): void => {
        if (!res.complete) fail(Object.assign(new Error('the server closed the connection mid-response'), { code: 'ECONNRESET' }));
      };
      res.on('error', truncated);
      res.on('close', truncated);
      res.on('end', () => settle(() => resolve({ status, headers, body: Buffer.concat(chunks).toString('utf8') })));
    });
    outgoing.end(req.body);
  });
}

/**
 * How long a stream whose answer has come (enough) may take to end by itself: an MCP server ends a POST's
 * SSE stream right after its response, and the connection then goes back to the pool for the next
 * request (a TCP, and TLS, handshake saved); a stream still open after this is closed, never reused.
 */
const ENDING_GRACE_MS = 250;

function closeUnlessEnding(outgoing: ClientRequest, res: IncomingMessage): void {
  if (res.complete) return;
  // unref: a process with nothing else to do does not wait for it (closing the pool ends the stream too).
  const timer = setTimeout(() => outgoing.destroy(), ENDING_GRACE_MS).unref();
  res.once('end', () => clearTimeout(timer));
  res.once('close', () => clearTimeout(timer));
}

/** Behind a proxy: undici, loaded then (it costs more to load than a short command's whole request). */
function proxied(options: OutboundOptions, proxy: ProxySettings): Outbound {
  let loaded: Promise<Outbound> | undefined;
  const outbound = (): Promise<Outbound> => (loaded ??= import('./proxy.js').then(({ createProxiedOutbound }) => createProxiedOutbound({ ...options, proxy })));
  return {
    send: async (req) => (await outbound()).send(req),
    close: async () => {
      if (loaded !== undefined) await (await loaded).close();
    },
  };
}
