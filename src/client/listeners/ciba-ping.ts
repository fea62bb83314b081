import type { IncomingMessage, ServerResponse } from 'node:http';
import { listen } from '../../http/server.js';
import { UsageError } from '../../errors.js';
import { parsePingCallback } from '../../oauth/ciba.js';
import { constantTimeEqual } from '../../oauth/pkce.js';

/** A ping is `{"auth_req_id"}`: a few hundred bytes; more is not read. */
const MAX_PING_BYTES = 4096;
/** A sender that trickles its request is cut off after this long. */
const PING_REQUEST_TIMEOUT_MS = 10_000;

export interface PingListener {
  /** The client notification endpoint, as the server must have it registered. */
  url: string;
  /** Resolves when the server has POSTed this auth_req_id with the right bearer token (section 10.2). */
  waitForPing(authReqId: string, signal?: AbortSignal): Promise<void>;
  /** Told of each request refused (a wrong token, another auth_req_id, a bad body), in one line. */
  onRefused?: (why: string) => void;
  close(): Promise<void>;
}

/**
 * CIBA Core 1.0 section 10.2: the client notification endpoint, on loopback only. It accepts a POST of
 * application/json `{"auth_req_id"}` whose Authorization is `Bearer <client_notification_token>`, the
 * token compared in constant time; it answers 204, and 401, 400, 404 or 405 to anything else, which
 * then changes nothing. `host` must be a loopback address.
 */
export async function startPingListener(options: { host: string; port: number; path: string; notificationToken: string }): Promise<PingListener> {
  const pinged = new Set<string>();
  const waiting = new Map<string, () => void>();
  const listener: PingListener = {
    url: '',
    waitForPing: (authReqId, signal) =>
      new Promise((resolve, reject) => {
        if (pinged.has(authReqId)) return resolve();
        if (signal?.aborted) return reject(signal.reason as Error);
        signal?.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
        waiting.set(authReqId, resolve);
      }),
    close: () => listening.close(),
  };
  async function handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const refuse = (status: number, error: string, why: string, headers: Record<string, string> = {}) => {
      listener.onRefused?.(why);
      res.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store', ...headers });
      res.end(JSON.stringify({ error, error_description: why }));
    };
    if (new URL(req.url ?? '/', 'http://x').pathname !== options.path) return refuse(404, 'not_found', `a request for another path than ${options.path}`);
    if (req.method !== 'POST') return refuse(405, 'invalid_request', `a ${req.method ?? '?'} request: the ping is a POST`, { allow: 'POST' });
    const authorization = req.headers.authorization ?? '';
    const bearer = /^Bearer ([\x21-\x7e]+)$/i.exec(authorization)?.[1];
    if (bearer === undefined || !constantTimeEqual(bearer, options.notificationToken)) {
      req.resume();
      return refuse(401, 'invalid_token', 'a ping without the client notification token', { 'www-authenticate': 'Bearer' });
    }
    const body = await readLimited(req);
    const authReqId = body === undefined ? undefined : parsePingCallback(body);
    if (authReqId === undefined) return refuse(400, 'invalid_request', 'a ping whose body is not {"auth_req_id"}');
    res.writeHead(204, { 'cache-control': 'no-store' });
    res.end();
    pinged.add(authReqId);
    waiting.get(authReqId)?.();
  }
  const listening = await listen((req, res) => void handle(req, res), {
    host: options.host,
    port: options.port,
    requestTimeoutMs: PING_REQUEST_TIMEOUT_MS,
    headersTimeoutMs: PING_REQUEST_TIMEOUT_MS,
  }).catch((err: NodeJS.ErrnoException) => {
    throw err.code === 'EADDRINUSE' || err.code === 'EADDRNOTAVAIL'
      ? new UsageError(`cannot listen on ${options.host}:${options.port} for the ping (${err.code})`, 'choose another --client-notification-endpoint (and register it with the server)')
      : err;
  });
  listener.url = `${listening.url}${options.path}`;
  return listener;
}

function readLimited(req: IncomingMessage): Promise<string | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= MAX_PING_BYTES) chunks.push(chunk);
    });
    req.on('end', () => resolve(size > MAX_PING_BYTES ? undefined : Buffer.concat(chunks).toString('utf8')));
    req.on('error', () => resolve(undefined));
  });
}
