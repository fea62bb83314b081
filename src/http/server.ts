import type { RequestListener, Server } from 'node:http';
import type { ServerOptions as TlsServerOptions } from 'node:https';

export interface ListenOptions {
  /** The address to listen on: 127.0.0.1 unless the caller asks for another (a user's --host, a redirect URI's loopback name). */
  host?: string | undefined;
  /** 0 (the default) for a free port. */
  port?: number | undefined;
  /** Serve HTTPS with these (node:https, loaded then); plain HTTP without. */
  tls?: TlsServerOptions | undefined;
  /** How long an idle keep-alive connection is kept (node:http's keepAliveTimeout; its default, 5 s, when not given). */
  keepAliveTimeoutMs?: number | undefined;
  /** The longest a request may take to arrive, head and body, and its head alone: a peer that sends slowly holds nothing for long. */
  requestTimeoutMs?: number | undefined;
  headersTimeoutMs?: number | undefined;
}

export interface Listening {
  server: Server;
  host: string;
  port: number;
  /** `http://host:port` (https with TLS), an IPv6 address in brackets. */
  url: string;
  /**
   * Stops listening and ends the connections: at once by default; with `graceMs`, an idle keep-alive
   * connection is ended as soon as it is idle, and any still open after `graceMs` then. The same
   * promise however often it is called.
   */
  close(options?: { graceMs?: number }): Promise<void>;
}

/**
 * The one way a server of oauthctl starts (the mock, the redirect listener, the back-channel logout
 * and CIBA ping listeners, the --ui page) and stops. node:http or node:https is loaded here, when a
 * server starts, never by a command that starts none. The port is taken alone (`exclusive`): a
 * cluster worker never shares it. Rejects with the listen error as Node gives it (EADDRINUSE,
 * EADDRNOTAVAIL): each caller says what to do in its own words.
 */
export async function listen(handler: RequestListener, options: ListenOptions = {}): Promise<Listening> {
  const host = options.host ?? '127.0.0.1';
  const timing = options.keepAliveTimeoutMs !== undefined ? { keepAliveTimeout: options.keepAliveTimeoutMs } : {};
  const server: Server = options.tls ? (await import('node:https')).createServer({ ...timing, ...options.tls }, handler) : (await import('node:http')).createServer(timing, handler);
  if (options.requestTimeoutMs !== undefined) server.requestTimeout = options.requestTimeoutMs;
  if (options.headersTimeoutMs !== undefined) server.headersTimeout = options.headersTimeoutMs;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen({ host, port: options.port ?? 0, exclusive: true }, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  let closing: Promise<void> | undefined;
  return {
    server,
    host,
    port,
    url: `${options.tls ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`,
    close: ({ graceMs = 0 } = {}) =>
      (closing ??= new Promise<void>((resolve) => {
        const idle = graceMs > 0 ? setInterval(() => server.closeIdleConnections(), 20) : undefined;
        const cut = graceMs > 0 ? setTimeout(() => server.closeAllConnections(), graceMs) : undefined;
        server.close(() => {
          clearInterval(idle);
          clearTimeout(cut);
          resolve();
        });
        if (graceMs > 0) server.closeIdleConnections();
        else server.closeAllConnections();
      })),
  };
}
