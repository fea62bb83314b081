import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A login that is a single-page app, the kind the Chromium driver is for: the authorization endpoint
 * answers a shell whose script draws everything. The account and password fields are drawn late, outside
 * any form; "Sign in" is a `<button type="button">`; the grant step is a list of checkboxes, a "Grant"
 * link to "#" that only works once a scope is ticked, and a "Deny" button inside a web component's
 * (open) shadow root; the app talks JSON to its API
 * and ends with location.assign to the redirect URI. A hidden "Approve all" button is a trap: a driver
 * that clicks what is not visible is sent to /trap.
 */
export interface SpaServer {
  url: string;
  /** Method and path of every request received, in order. */
  requests: string[];
  close(): Promise<void>;
}

export interface SpaServerOptions {
  username?: string;
  password?: string;
  /** Extra requests the app keeps making while it runs (images at a slow endpoint), as real portals do. */
  busy?: boolean;
}

const APP = `
const params = new URLSearchParams(location.search);
const root = document.getElementById('root');
const api = (path, body) => fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }).then((r) => r.json());
const el = (tag, props, ...children) => { const e = Object.assign(document.createElement(tag), props); e.append(...children); return e; };
function busy() { if (BUSY) for (let i = 0; i < 20; i++) el('img', { src: '/slow.png?' + Math.random() }); }
function signIn() {
  root.replaceChildren(
    el('h1', {}, 'Welcome back'),
    el('label', { htmlFor: 'who' }, 'Email'), el('input', { id: 'who', type: 'email', autocomplete: 'username' }),
    el('input', { id: 'secret', type: 'password', placeholder: 'Password' }),
    el('p', { id: 'message', role: 'alert' }),
    el('button', { type: 'button', className: 'primary', onclick: submit }, 'Sign in'),
    el('a', { href: '#', onclick: () => false }, 'Forgot password?'),
  );
}
async function submit() {
  busy();
  const answer = await api('/api/login', { username: document.getElementById('who').value, password: document.getElementById('secret').value, tx: params.get('tx') });
  if (answer.error) { document.getElementById('message').textContent = answer.error; return; }
  setTimeout(grant, 150);
}
function grant() {
  const scopes = ['photos', 'profile'].map((s) => el('label', {}, el('input', { type: 'checkbox', value: s }), ' Share your ' + s));
  const hidden = el('button', { type: 'button', style: 'display:none', onclick: () => location.assign('/trap') }, 'Approve all');
  const go = el('a', { href: '#', className: 'link-button' }, 'Grant');
  go.addEventListener('click', async (event) => {
    event.preventDefault();
    const chosen = [...root.querySelectorAll('input[type=checkbox]:checked')].map((c) => c.value);
    if (chosen.length === 0) { document.getElementById('message').textContent = 'Choose at least one thing to share'; return; }
    busy();
    location.assign((await api('/api/grant', { tx: params.get('tx'), scopes: chosen })).redirect);
  });
  const deny = el('button', { type: 'button', onclick: async () => location.assign((await api('/api/deny', { tx: params.get('tx') })).redirect) }, 'Deny');
  const actions = el('div', {});
  actions.attachShadow({ mode: 'open' }).append(deny);
  root.replaceChildren(el('h1', {}, 'Photo app wants to access your account'), ...scopes, el('p', { id: 'message', role: 'alert' }), hidden, actions, go);
}
setTimeout(signIn, 300);
`;

export async function startSpaServer(options: SpaServerOptions = {}): Promise<SpaServer> {
  const username = options.username ?? 'carol@example.com';
  const password = options.password ?? 'open sesame';
  const transactions = new Map<string, { redirectUri: string; state: string; user?: string }>();
  const requests: string[] = [];

  const send = (res: ServerResponse, status: number, type: string, body: string) => res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
  const json = (res: ServerResponse, body: unknown) => send(res, 200, 'application/json', JSON.stringify(body));

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://spa');
    requests.push(`${req.method} ${url.pathname}`);
    const body = await new Promise<string>((resolve) => {
      let data = '';
      req.on('data', (c: Buffer) => (data += c.toString()));
      req.on('end', () => resolve(data));
    });
    if (url.pathname === '/authorize') {
      const tx = randomBytes(8).toString('hex');
      transactions.set(tx, { redirectUri: url.searchParams.get('redirect_uri') ?? '', state: url.searchParams.get('state') ?? '' });
      res.writeHead(302, { location: `/app?tx=${tx}` }).end();
      return;
    }
    if (url.pathname === '/app') {
      return send(res, 200, 'text/html', `<!doctype html><title>Photo login</title><div id="root">Loading...</div><script>const BUSY = ${options.busy === true};${APP}</script>`);
    }
    if (url.pathname === '/slow.png') {
      await new Promise((resolve) => setTimeout(resolve, 400));
      return send(res, 404, 'text/plain', '');
    }
    const input = (body ? JSON.parse(body) : {}) as { tx?: string; username?: string; password?: string; scopes?: string[] };
    const tx = transactions.get(input.tx ?? '');
    if (!tx) return send(res, 400, 'application/json', '{"error":"unknown transaction"}');
    const back = (params: Record<string, string>) => {
      const target = new URL(tx.redirectUri);
      for (const [k, v] of Object.entries({ ...params, state: tx.state })) target.searchParams.set(k, v);
      return { redirect: target.href };
    };
    if (url.pathname === '/api/login') {
      if (input.username !== username || input.password !== password) return json(res, { error: 'Wrong email or password' });
      tx.user = input.username;
      return json(res, { ok: true });
    }
    if (url.pathname === '/api/grant' && tx.user) return json(res, back({ code: `code-for-${tx.user}`, scope: (input.scopes ?? []).join(' ') }));
    if (url.pathname === '/api/deny') return json(res, back({ error: 'access_denied' }));
    send(res, 404, 'text/plain', 'not found');
  };

  const server = createServer((req, res) => void handle(req, res).catch(() => res.writeHead(500).end()));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
