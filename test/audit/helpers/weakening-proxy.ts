import { createServer, request, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** How the proxy weakens the server behind it, one session rule each. */
export type SessionWeakness = 'open-post-logout-redirect' | 'ignore-prompt' | 'ignore-max-age' | 'ignore-id-token-hint';

const DROPPED: Partial<Record<SessionWeakness, string>> = { 'ignore-prompt': 'prompt', 'ignore-max-age': 'max_age', 'ignore-id-token-hint': 'id_token_hint' };

/**
 * A reverse proxy in front of a correct server (the mock) that breaks one rule: drops a parameter of the
 * authorization request before the server sees it, or answers the end_session_endpoint with a redirect
 * to whatever post_logout_redirect_uri it is given. Everything else, the metadata and redirects
 * rewritten to the proxy's origin, passes through.
 */
export async function startWeakeningProxy(target: string, weakness: SessionWeakness): Promise<{ url: string; close: () => Promise<void> }> {
  const upstream = new URL(target);
  let origin = '';
  const server: Server = createServer((req: IncomingMessage, res) => {
    const url = new URL(req.url ?? '/', upstream);
    if (weakness === 'open-post-logout-redirect' && url.pathname === '/logout') {
      res.writeHead(302, { location: url.searchParams.get('post_logout_redirect_uri') ?? '/' });
      return void res.end();
    }
    const dropped = DROPPED[weakness];
    if (dropped && url.pathname === '/authorize') url.searchParams.delete(dropped);
    const forward = request(url, { method: req.method, headers: { ...req.headers, host: upstream.host } }, (up) => {
      const headers = { ...up.headers };
      if (typeof headers.location === 'string') headers.location = headers.location.replace(upstream.origin, origin);
      const chunks: Buffer[] = [];
      up.on('data', (c: Buffer) => chunks.push(c));
      up.on('end', () => {
        let body = Buffer.concat(chunks);
        if (/json/.test(String(headers['content-type']))) body = Buffer.from(body.toString().replaceAll(upstream.origin, origin));
        headers['content-length'] = String(body.length);
        res.writeHead(up.statusCode ?? 502, headers);
        res.end(body);
      });
    });
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: origin,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
