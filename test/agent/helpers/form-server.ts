import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small login server with plain HTML forms, unlike the mock in every detail the headless agent must
 * not depend on: the account field is called `identifier` and labelled "Email address", the password
 * field `pwd`, a CSRF token is hidden in the form, the session cookie is path-scoped, and consent is
 * answered with two named buttons.
 */
export interface FormServerOptions {
  username?: string;
  password?: string;
  /** Serve a page that only works with JavaScript instead of the login form. */
  needsJavaScript?: boolean;
  /** Answer with response_mode=form_post: a page whose script posts the code to the redirect URI. */
  formPost?: boolean;
  /** Ask for the account name first, then the password on a second page. */
  identifierFirst?: boolean;
}

export interface FormServer {
  url: string;
  requests: { method: string; path: string; cookie?: string; body: string }[];
  close(): Promise<void>;
}

const page = (title: string, body: string) => `<!doctype html><html><head><title>${title}</title><meta charset=utf-8></head><body>${body}</body></html>`;

export async function startFormServer(options: FormServerOptions = {}): Promise<FormServer> {
  const username = options.username ?? 'bob@example.com';
  const password = options.password ?? 'p@ss word&=';
  const csrf = 'csrf-123';
  const sessions = new Map<string, { redirectUri: string; state: string; user?: string; identifier?: string }>();
  let counter = 0;
  const requests: FormServer['requests'] = [];

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://x');
    const body = await readBody(req);
    const cookie = req.headers.cookie;
    requests.push({ method: req.method ?? '', path: url.pathname + url.search, body, ...(cookie ? { cookie } : {}) });
    const sid = /(?:^|; )sid=([^;]+)/.exec(cookie ?? '')?.[1];
    const session = sid ? sessions.get(sid) : undefined;
    const form = new URLSearchParams(body);
    const html = (status: number, text: string) => {
      res.writeHead(status, { 'content-type': 'text/html; charset=utf-8' });
      res.end(text);
    };
    const redirect = (status: number, location: string) => {
      res.writeHead(status, { location });
      res.end();
    };

    if (url.pathname === '/authorize') {
      const id = `s${++counter}`;
      sessions.set(id, { redirectUri: url.searchParams.get('redirect_uri') ?? '', state: url.searchParams.get('state') ?? '' });
      res.setHeader('set-cookie', [`sid=${id}; Path=/app; HttpOnly; SameSite=Lax`, 'tracking=1; Path=/; Max-Age=0']);
      return redirect(302, options.needsJavaScript ? '/app/spa' : '/app/login');
    }
    if (url.pathname === '/app/spa') {
      return html(200, page('Sign in', '<div id="root"></div><script src="/bundle.js"></script><noscript>Enable JavaScript</noscript>'));
    }
    if (url.pathname === '/bundle.js') {
      res.writeHead(200, { 'content-type': 'text/javascript' });
      // The login form exists only once this script has run.
      return res.end(
        `document.getElementById('root').innerHTML = ${JSON.stringify(
          loginPage('both', csrf)
            .replace(/^.*<body>|<\/body>.*$/g, '')
            .replace('<form method="POST">', '<form method="POST" action="/app/login">'),
        )};`,
      );
    }
    if (!session) return html(400, page('Error', '<p class="error-message">Your session has expired.</p>'));

    if (url.pathname === '/app/login' && req.method === 'GET') return html(200, loginPage(options.identifierFirst ? 'identifier' : 'both', csrf));
    if (url.pathname === '/app/login' && req.method === 'POST') {
      if (form.get('_csrf') !== csrf) return html(403, page('Forbidden', '<p>CSRF check failed</p>'));
      if (options.identifierFirst && session.identifier === undefined) {
        session.identifier = form.get('identifier') ?? '';
        return html(200, loginPage('password', csrf));
      }
      const user = options.identifierFirst ? session.identifier : form.get('identifier');
      if (user !== username || form.get('pwd') !== password) {
        return html(200, loginPage('both', csrf, '<div role="alert">Invalid email or password.</div>'));
      }
      session.user = user;
      return redirect(303, '/app/consent');
    }
    if (!session.user) return html(401, page('Error', '<p>not logged in</p>'));
    if (url.pathname === '/app/consent' && req.method === 'GET') {
      return html(
        200,
        page(
          'Authorize',
          `<form method="post" action="consent"><input type="hidden" name="_csrf" value="${csrf}"><p>Let the app see your photos?</p>` +
            '<label><input type="checkbox" name="remember" value="yes" checked> Remember</label>' +
            '<button type="submit" name="decision" value="deny">No, thanks</button>' +
            '<button type="submit" name="decision" value="allow">Allow access</button></form>',
        ),
      );
    }
    if (url.pathname === '/app/consent' && req.method === 'POST') {
      if (form.get('_csrf') !== csrf || form.get('remember') !== 'yes') return html(400, page('Bad request', '<p>bad form</p>'));
      const target = new URL(session.redirectUri);
      const params: Record<string, string> = form.get('decision') === 'allow' ? { code: 'code-for-' + session.user, state: session.state } : { error: 'access_denied', state: session.state };
      if (options.formPost) {
        const inputs = Object.entries(params)
          .map(([k, v]) => `<input type="hidden" name="${k}" value="${escapeHtml(v)}">`)
          .join('');
        return html(200, page('Submit', `<form method="post" action="${escapeHtml(target.href)}">${inputs}</form><script>document.forms[0].submit()</script>`));
      }
      for (const [k, v] of Object.entries(params)) target.searchParams.set(k, v);
      return redirect(302, target.href);
    }
    html(404, page('Not found', '<p>not found</p>'));
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch(() => {
      res.statusCode = 500;
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

function loginPage(ask: 'both' | 'identifier' | 'password', csrf: string, error = ''): string {
  const identifier = ask !== 'password' ? '<label for="f-id">Email address</label><input id="f-id" name="identifier" type="text">' : '';
  const pwd = ask !== 'identifier' ? '<label for="f-pw">Secret phrase</label><input id="f-pw" name="pwd" type="password">' : '';
  return page(
    'Sign in',
    `${error}<form method="POST"><input type="hidden" name="_csrf" value="${csrf}">${identifier}${pwd}` +
      '<input type="submit" value="Cancel" name="cancel"><button>Sign in</button></form><a href="/help">No account?</a>',
  );
}

function escapeHtml(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
