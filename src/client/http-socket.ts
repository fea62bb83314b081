import { connect as connectTcp, isIP, type Socket } from 'node:net';
import type { Transport, TransportRequest, TransportResponse } from './http-transport.js';
import { ResponseReader, type ReadResponse } from './http1-response.js';
import { hasBadFieldChar, isToken } from '../oauth/http-syntax.js';

/**
 * A connection idle longer than this is closed, not reused: a server may close an idle connection at
 * any moment (Node's own servers after 5 s), and a request written just as it does is lost
 * (RFC 9112 section 9.3.1: a POST is not retried). Requests of one command follow each other closely.
 */
const IDLE_REUSE_MS = 1000;

interface Idle {
  socket: Socket;
  since: number;
  drop: () => void;
}

/**
 * The common case, no proxy: HTTP/1.1 written and read here (src/client/http1-response.ts) over
 * node:net, or node:tls for an https URL (loaded then), one kept-alive connection per origin. A short
 * command pays for node:http's machinery on every run, several milliseconds of a `token` or `mcp`
 * hot path, and uses none of it. TLS as node:https sets it up: the name checked against the
 * certificate, SNI for a host name, Node's default trust store (NODE_EXTRA_CA_CERTS included).
 */
export function createSocketTransport(options: {
  insecure?: boolean | undefined;
  clientCertificate?: { cert: string; key: string } | undefined;
  /** How long an idle connection may be reused (tests); IDLE_REUSE_MS by default. */
  idleReuseMs?: number;
}): Transport {
  const idleReuseMs = options.idleReuseMs ?? IDLE_REUSE_MS;
  const idle = new Map<string, Idle>();

  async function open(url: URL, key: string): Promise<Socket> {
    const kept = idle.get(key);
    if (kept !== undefined) {
      idle.delete(key);
      kept.socket.off('data', kept.drop).off('end', kept.drop).off('close', kept.drop).off('error', kept.drop);
      if (!kept.socket.destroyed && Date.now() - kept.since < idleReuseMs) return kept.socket.ref();
      kept.socket.destroy();
    }
    const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
    const port = Number(url.port || (url.protocol === 'https:' ? 443 : 80));
    if (url.protocol !== 'https:') return connectTcp({ host, port, noDelay: true });
    const tls = await import('node:tls');
    // RFC 6066 section 3: SNI carries host names only, never an address.
    return tls.connect({ host, port, servername: isIP(host) === 0 ? host : undefined, rejectUnauthorized: options.insecure !== true, ...options.clientCertificate }).setNoDelay(true);
  }

  function keepIdle(key: string, socket: Socket): void {
    if (idle.has(key)) {
      socket.destroy();
      return;
    }
    // A byte, an end or an error while no request is out: the server is done with this connection.
    const drop = (): void => {
      socket.destroy();
      if (idle.get(key)?.socket === socket) idle.delete(key);
    };
    socket.on('data', drop).on('end', drop).on('close', drop).on('error', drop).unref();
    idle.set(key, { socket, since: Date.now(), drop });
  }

  async function send(req: TransportRequest): Promise<TransportResponse> {
    const url = new URL(req.url);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      throw Object.assign(new TypeError(`Protocol "${url.protocol}" not supported. Expected "http:" or "https:"`), { code: 'ERR_INVALID_PROTOCOL' });
    const head = requestHead(req.method, url, req.headers, req.body);
    if (req.abort.aborted) throw req.abort.reason;
    // One kept-alive connection per origin.
    const key = `${url.protocol}//${url.host}`;
    const socket = await open(url, key);
    if (req.abort.aborted) {
      socket.destroy();
      throw req.abort.reason;
    }
    return new Promise<TransportResponse>((resolve, reject) => {
      const reader = new ResponseReader(req.method.toUpperCase(), req.maxBytes);
      let settled = false;
      const settle = (): boolean => {
        if (settled) return false;
        settled = true;
        socket.off('data', onData).off('end', onEnd).off('close', onEnd).off('error', fail);
        unsubscribe();
        return true;
      };
      function fail(err: unknown): void {
        if (!settle()) return;
        socket.destroy();
        reject(err);
      }
      const finish = (res: ReadResponse): void => {
        if (!settle()) return;
        if (res.keepAlive && !socket.destroyed) keepIdle(key, socket);
        else socket.destroy();
        resolve({ status: res.status, headers: res.headers, body: res.body.toString('utf8') });
      };
      function onData(data: Buffer): void {
        try {
          const res = reader.push(data);
          if (res !== undefined) return finish(res);
          const sofar = req.enough === undefined ? undefined : reader.partial();
          if (sofar !== undefined && req.enough!(sofar.status, sofar.headers, sofar.body)) finish(sofar);
        } catch (err) {
          fail(err);
        }
      }
      function onEnd(): void {
        try {
          finish(reader.end());
        } catch (err) {
          fail(err);
        }
      }
      const unsubscribe = req.abort.onAbort(fail);
      socket.on('data', onData).on('end', onEnd).on('close', onEnd).on('error', fail);
      // The head in latin1, as node:http writes fields; the body in UTF-8: one write, one segment for a small request.
      socket.write(req.body === undefined ? Buffer.from(head, 'latin1') : Buffer.concat([Buffer.from(head, 'latin1'), Buffer.from(req.body, 'utf8')]));
    });
  }

  return {
    send,
    close: async () => {
      for (const { socket } of idle.values()) socket.destroy();
      idle.clear();
    },
  };
}

/**
 * The request line and fields (RFC 9112 sections 3 and 5), refused as node:http refuses them when a
 * method, a field name or a value could break the message (a token from a server with a CR LF in it).
 */
export function requestHead(method: string, url: URL, headers: Record<string, string | string[]>, body: string | undefined): string {
  // RFC 9110 section 5.6.2: methods and field names are tokens; field values visible characters, SP and HTAB.
  if (!isToken(method)) throw Object.assign(new TypeError(`Method must be a valid HTTP token ["${method}"]`), { code: 'ERR_INVALID_HTTP_TOKEN' });
  const names = new Set<string>();
  let text = `${method} ${url.pathname}${url.search} HTTP/1.1\r\n`;
  const fields: string[] = [];
  for (const [name, values] of Object.entries(headers)) {
    if (!isToken(name)) throw Object.assign(new TypeError(`Header name must be a valid HTTP token ["${name}"]`), { code: 'ERR_INVALID_HTTP_TOKEN' });
    names.add(name.toLowerCase());
    for (const value of Array.isArray(values) ? values : [values]) {
      if (hasBadFieldChar(value, true)) throw Object.assign(new TypeError(`Invalid character in header content ["${name}"]`), { code: 'ERR_INVALID_CHAR' });
      fields.push(`${name}: ${value}\r\n`);
    }
  }
  if (!names.has('host')) text += `host: ${url.host}\r\n`;
  // As node:http does: credentials in the URL (http://user:pass@host/) are sent as Basic authentication.
  if ((url.username !== '' || url.password !== '') && !names.has('authorization')) {
    fields.push(`authorization: Basic ${Buffer.from(`${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}`).toString('base64')}\r\n`);
  }
  text += fields.join('');
  if (!names.has('content-length') && !names.has('transfer-encoding')) {
    if (body !== undefined) text += `content-length: ${Buffer.byteLength(body)}\r\n`;
    else if (!['GET', 'HEAD', 'DELETE', 'OPTIONS', 'TRACE', 'CONNECT'].includes(method.toUpperCase())) text += 'content-length: 0\r\n';
  }
  return `${text}\r\n`;
}
