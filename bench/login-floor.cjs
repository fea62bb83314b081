'use strict';
// The least a headless login can do, for bench/login.bench.mjs to measure beside `oauthctl login
// --headless`: Node's http and crypto, a redirect listener on loopback, the mock's sign-in and consent
// forms sent as they are, the code taken at the listener and exchanged with its PKCE verifier. No
// command line, no checks, nothing printed but the token's first characters.
//
//   node bench/login-floor.cjs ISSUER pages   reads the pages with parse5 and keeps cookies in
//                                              tough-cookie (the page bundle oauthctl loads, with its
//                                              code cache), as the headless agent uses them
//   node bench/login-floor.cjs ISSUER bare    a regular expression for the forms, a Map for cookies
const http = require('node:http');
const { createHash, randomBytes } = require('node:crypto');
const { join } = require('node:path');

const [issuer, how] = process.argv.slice(2);
const withPages = how === 'pages';
const agent = new http.Agent({ keepAlive: true });
const CREDENTIALS = { username: 'alice', password: 'wonderland' };

let pages;
let jar;
const cookies = new Map();
function pageLibraries() {
  if (pages === undefined) {
    pages = require(join(__dirname, '..', 'bin', 'load-cli.js')).loadPageLibraries();
    jar = new pages.toughCookie.CookieJar();
  }
  return pages;
}

function keepCookies(setCookie, url) {
  for (const line of setCookie ?? []) {
    if (withPages) {
      pageLibraries();
      jar.setCookieSync(line, url);
    } else {
      const [pair] = line.split(';');
      const eq = pair.indexOf('=');
      cookies.set(pair.slice(0, eq).trim(), pair.slice(eq + 1).trim());
    }
  }
}

function cookieHeader(url) {
  if (withPages) return jar === undefined ? '' : jar.getCookieStringSync(url);
  return [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
}

function request(method, url, body) {
  return new Promise((resolve, reject) => {
    const headers = {};
    const cookie = cookieHeader(url);
    if (cookie) headers.cookie = cookie;
    if (body !== undefined) headers['content-type'] = 'application/x-www-form-urlencoded';
    const req = http.request(new URL(url), { method, headers, agent }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => {
        keepCookies(res.headers['set-cookie'], url);
        resolve({ status: res.statusCode, location: res.headers.location, text });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** The page's form: its action and its fields, the first submit button's name and value among them. */
function formOf(html, pageUrl) {
  const fields = [];
  const add = (tag, attrs) => {
    if (attrs.name === undefined || (tag === 'button' && fields.some(([name]) => name === attrs.name))) return;
    fields.push([attrs.name, CREDENTIALS[attrs.name] ?? attrs.value ?? '']);
  };
  let action;
  if (withPages) {
    const attrsOf = (node) => Object.fromEntries(node.attrs.map((a) => [a.name, a.value]));
    const walk = (node) => {
      if (node.nodeName === 'form') action ??= attrsOf(node).action;
      if (node.nodeName === 'input' || node.nodeName === 'button') add(node.nodeName, attrsOf(node));
      for (const child of node.childNodes ?? []) walk(child);
    };
    walk(pageLibraries().parse5.parse(html));
  } else {
    action = /<form\b[^>]*\baction="([^"]*)"/.exec(html)?.[1];
    for (const [, tag, attrs] of html.matchAll(/<(input|button)\b([^>]*)>/g)) {
      add(tag, Object.fromEntries([...attrs.matchAll(/([\w-]+)(?:="([^"]*)")?/g)].map(([, n, v]) => [n, v ?? ''])));
    }
  }
  if (action === undefined) throw new Error(`no form at ${pageUrl}`);
  return { action: new URL(action, pageUrl).href, body: new URLSearchParams(fields).toString() };
}

async function main() {
  let code;
  let delivered;
  const redirected = new Promise((resolve) => (delivered = resolve));
  const listener = http.createServer((req, res) => {
    code = new URL(req.url, 'http://127.0.0.1').searchParams.get('code');
    res.end('done');
    delivered();
  });
  await new Promise((resolve) => listener.listen(0, '127.0.0.1', resolve));
  const redirectUri = `http://127.0.0.1:${listener.address().port}/callback`;
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  const query = {
    response_type: 'code',
    client_id: 'photo-cli',
    redirect_uri: redirectUri,
    scope: 'photo',
    state: randomBytes(16).toString('base64url'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
  };
  let url = `${issuer}/authorize?${new URLSearchParams(query)}`;
  let res = await request('GET', url);
  for (let step = 0; !url.startsWith(redirectUri); step++) {
    if (step === 10) throw new Error('no redirect after 10 steps');
    if (res.status === 200) {
      const form = formOf(res.text, url);
      url = form.action;
      res = await request('POST', url, form.body);
    } else if (res.location !== undefined) {
      url = new URL(res.location, url).href;
      res = await request('GET', url);
    } else throw new Error(`HTTP ${res.status} at ${url}`);
  }
  await redirected;
  const token = await request(
    'POST',
    `${issuer}/token`,
    new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: 'photo-cli', code_verifier: verifier }).toString(),
  );
  process.stdout.write(`${JSON.parse(token.text).access_token.slice(0, 8)}\n`);
  process.exit(0);
}

main().catch((err) => {
  process.stderr.write(`login-floor: ${err.message}\n`);
  process.exit(1);
});
