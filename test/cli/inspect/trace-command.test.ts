// `oauthctl trace FILE` draws a recorded flow as text fitted to the width, escapes
// what the file holds, writes the HTML page, and `--check` finds what looks wrong (exit 1), 0 when
// clean, 2 for a file that is not a HAR, however hostile the file.
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { runCli } from '../../daily/helpers/io.js';
import { homeEnv } from '../../helpers/cli.js';

let dir: string;
let env: Record<string, string>;
let mock: MockServer;
let recorded: string;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'oauthctl-trace-cmd-'));
  env = homeEnv(dir);
  mock = await createMockServer({});
  recorded = join(dir, 'login.har');
  const r = await runCli(
    ['login', '--issuer', mock.issuer, '--client-id', 'photo-cli', '--scope', 'openid photo', '--headless', '--username', 'alice', '--password', 'wonderland', '--trace', recorded],
    env,
  );
  expect(r.code, r.stderr).toBe(0);
});
afterAll(async () => {
  await mock?.close();
  rmSync(dir, { recursive: true, force: true });
});

interface Spec {
  actor?: string;
  step?: string;
  method?: string;
  url: string;
  form?: Record<string, string>;
  status?: number;
  location?: string;
  json?: unknown;
}

const ISSUER = 'https://as.example';
function entry(s: Spec): unknown {
  const body = s.form ? new URLSearchParams(s.form).toString() : undefined;
  return {
    startedDateTime: '2026-11-24T10:00:00.000Z',
    time: 5,
    request: {
      method: s.method ?? (body ? 'POST' : 'GET'),
      url: s.url,
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: body ? [{ name: 'content-type', value: 'application/x-www-form-urlencoded' }] : [],
      queryString: [],
      ...(body ? { postData: { mimeType: 'application/x-www-form-urlencoded', text: body } } : {}),
      headersSize: -1,
      bodySize: -1,
    },
    response: {
      status: s.status ?? 200,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: s.location ? [{ name: 'location', value: s.location }] : [],
      content: { size: 0, mimeType: 'application/json', text: s.json === undefined ? '' : JSON.stringify(s.json) },
      redirectURL: s.location ?? '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 5, receive: 0 },
    _oauthctl: { actor: s.actor ?? 'client', ...(s.step ? { step: s.step } : {}) },
  };
}

/** A code flow as a HAR, with what the test changes in it. */
function flow(o: { authorize?: Record<string, string>; callback?: Record<string, string>; token?: Record<string, string>; metadata?: Record<string, unknown>; extra?: Spec[] } = {}): string {
  const authorize = {
    response_type: 'code',
    client_id: 'app',
    redirect_uri: 'http://127.0.0.1:5000/callback',
    state: 's-123',
    code_challenge: 'x'.repeat(43),
    code_challenge_method: 'S256',
    ...o.authorize,
  };
  const entries = [
    entry({ url: `${ISSUER}/.well-known/oauth-authorization-server`, json: { issuer: ISSUER, authorization_endpoint: `${ISSUER}/authorize`, ...o.metadata } }),
    entry({ actor: 'user-agent', url: `${ISSUER}/authorize?${new URLSearchParams(authorize)}`, status: 302, location: 'http://127.0.0.1:5000/callback?code=c' }),
    entry({ actor: 'listener', url: `http://127.0.0.1:5000/callback?${new URLSearchParams({ code: '[redacted 20 chars]', state: 's-123', iss: ISSUER, ...o.callback })}` }),
    entry({
      url: `${ISSUER}/token`,
      form: { grant_type: 'authorization_code', code: '[redacted 20 chars]', redirect_uri: 'http://127.0.0.1:5000/callback', code_verifier: '[redacted 43 chars]', ...o.token },
      json: { token_type: 'Bearer' },
    }),
    ...(o.extra ?? []).map(entry),
  ];
  return JSON.stringify({ log: { version: '1.2', creator: { name: 'test', version: '1' }, entries } });
}

function file(name: string, text: string): string {
  const path = join(dir, name);
  writeFileSync(path, text);
  return path;
}

const check = async (text: string) => {
  const r = await runCli(['trace', file('x.har', text), '--check', '--json'], env);
  return { ...r, ids: r.code === 2 ? [] : (JSON.parse(r.stdout) as { findings: { id: string; rfc: string }[] }).findings.map((f) => `${f.id} ${f.rfc}`) };
};

describe('oauthctl trace FILE', () => {
  it.each([60, 100, 160])('draws the recorded login as a sequence diagram no wider than %i columns', async (width) => {
    const r = await runCli(['trace', recorded], { ...env, COLUMNS: String(width) });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/user agent.*client.*autho/);
    expect(Math.max(...lines.map((l) => [...l].length))).toBeLessThanOrEqual(width);
    expect(r.stdout).toMatch(/─+.*▶/);
    expect(r.stdout).toContain('state=');
    expect(lines.filter((l) => /[▶◀]/.test(l))).toHaveLength(2 * 8 + 1);
  });

  it('escapes every text of the file: no control character reaches the terminal', async () => {
    const hostile = flow({ authorize: { scope: 'photo\x1b]52;c;ZWNobyBwd25lZA==\x07\x1b[2J', state: 's-123\u009b31m' }, callback: { error: 'x\x1b[31mred\r\n' } });
    const r = await runCli(['trace', file('hostile.har', hostile)], { ...env, COLUMNS: '200' });
    expect(r.code).toBe(0);
    expect(r.stdout).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(r.stdout).toContain('\\x1b]52;c;');
    const html = join(dir, 'hostile.html');
    expect((await runCli(['trace', join(dir, 'hostile.har'), '--html', html], env)).code).toBe(0);
    const page = readFileSync(html, 'utf8');
    expect(page).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/);
    expect(page).not.toMatch(/<script/i);
  });

  it('--html writes one page, 0600, with a CSP that allows no script and no image, the failing step marked', async () => {
    const out = join(dir, 'page.html');
    const failing = flow({ extra: [{ url: `${ISSUER}/token`, form: { grant_type: 'refresh_token', refresh_token: '[redacted 9 chars]' }, status: 400, json: { error: 'invalid_grant' } }] });
    const r = await runCli(['trace', file('failing.har', failing), '--html', out], env);
    expect(r.code).toBe(0);
    expect(statSync(out).mode & 0o777).toBe(0o600);
    const page = readFileSync(out, 'utf8');
    expect(page).toMatch(/<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'sha256-[A-Za-z0-9+/=]+'; img-src 'none'/);
    expect(page).toMatch(/The flow failed<\/strong> at <a href="#x5">exchange 5, refresh<\/a>: HTTP 400, invalid_grant/);
    expect(page).toMatch(/<details class="exchange failed" id="d-x5" open>/);
  });

  it('--json prints the lifelines and arrows', async () => {
    const r = await runCli(['trace', recorded, '--json'], env);
    const doc = JSON.parse(r.stdout) as { lifelines: { role: string }[]; messages: { label: string; reply: boolean }[] };
    expect(doc.lifelines.map((l) => l.role)).toEqual(['user agent', 'client', 'authorization server']);
    expect(doc.messages.find((m) => !m.reply && m.label === 'POST /token')).toBeDefined();
  });
});

describe('oauthctl trace FILE --check', () => {
  it('a recorded login with PKCE, state and iss: nothing, exit 0', async () => {
    const r = await runCli(['trace', recorded, '--check'], env);
    expect(r.code, r.stdout).toBe(0);
    expect(r.stdout).toMatch(/^✓ nothing looks wrong/);
  });

  it.each([
    ['a state that does not match', { callback: { state: 'forged' } }, 'state-mismatch RFC 6749 section 10.12 (and 4.1.2)'],
    ['no state at all', { authorize: { state: '' } }, 'state-missing RFC 6749 section 10.12'],
    ['an empty code_challenge', { authorize: { code_challenge: '', code_challenge_method: '' } }, 'no-pkce RFC 7636 section 4.3; RFC 9700 section 2.1.1'],
    ['PKCE with plain', { authorize: { code_challenge_method: 'plain' } }, 'pkce-plain RFC 7636 section 4.2; RFC 9700 section 2.1.1'],
    ['a redirect URI changed between authorization and token request', { token: { redirect_uri: 'http://127.0.0.1:6000/callback' } }, 'redirect-uri-changed RFC 6749 section 4.1.3'],
    ['a token in a URL', { extra: [{ url: 'https://api.example/photos?access_token=[redacted 30 chars]' }] }, 'token-in-url RFC 6750 section 2.3; RFC 9700 section 2.1.2'],
    ['no iss where the server announces it', { metadata: { authorization_response_iss_parameter_supported: true }, callback: { iss: '' } }, 'iss-mismatch RFC 9207 section 2.4'],
  ] as const)('%s: found with its RFC section, exit 1', async (_name, change, expected) => {
    const r = await check(flow(change as Parameters<typeof flow>[0]));
    expect(r.code, r.stderr).toBe(1);
    expect(r.ids).toContain(expected);
  });

  it('no code_challenge at all, and a missing iss, each named', async () => {
    const noPkce = JSON.parse(flow()) as { log: { entries: { request: { url: string } }[] } };
    noPkce.log.entries[1]!.request.url = `${ISSUER}/authorize?response_type=code&client_id=app&state=s-123&redirect_uri=${encodeURIComponent('http://127.0.0.1:5000/callback')}`;
    expect((await check(JSON.stringify(noPkce))).ids).toContain('no-pkce RFC 7636 section 4.3; RFC 9700 section 2.1.1');
    const noIss = JSON.parse(flow({ metadata: { authorization_response_iss_parameter_supported: true } })) as { log: { entries: { request: { url: string } }[] } };
    noIss.log.entries[2]!.request.url = 'http://127.0.0.1:5000/callback?code=c&state=s-123';
    const r = await check(JSON.stringify(noIss));
    expect(r.code).toBe(1);
    expect(r.ids).toEqual(['iss-missing RFC 9207 section 2.4']);
  });

  it('through the system browser: the request the client sent the browser off with is the one checked', async () => {
    const doc = JSON.parse(flow({ callback: { state: 'forged' } })) as { log: { entries: { _oauthctl: unknown; response: { status: number } }[] } };
    doc.log.entries[1]!._oauthctl = { actor: 'client', step: 'authorization', handoff: true };
    doc.log.entries[1]!.response.status = 0;
    const r = await check(JSON.stringify(doc));
    expect(r.ids).toEqual(['state-mismatch RFC 6749 section 10.12 (and 4.1.2)']);
    const text = await runCli(['trace', join(dir, 'x.har')], { ...env, COLUMNS: '120' });
    expect(text.stdout).toMatch(/│◀─+ send to \/authorize ─+│/);
  });

  it('text output: one line a finding, escaped', async () => {
    const r = await runCli(['trace', file('mismatch.har', flow({ callback: { state: 'forged\x1b[2J' } })), '--check'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toMatch(/^✗ state-mismatch \(exchange 3, RFC 6749 section 10\.12 \(and 4\.1\.2\)\): the redirect's state \(forged\\x1b\[2J\) is not the one sent \(s-123\)$/m);
  });
});

describe('hostile and broken files', () => {
  it.each([
    ['not JSON', 'GIF89a\x00\x01', /is not a HAR file: it is not JSON/],
    ['JSON without log.entries', '{"log":{}}', /has no log.entries array/],
    ['an entry without a request', '{"log":{"entries":[{"response":{}}]}}', /entry 1 has no request/],
  ])('%s: one line, exit 2', async (_name, text, message) => {
    const r = await runCli(['trace', file('bad.har', text), '--check'], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
    expect(r.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('a file that is missing, or a directory: exit 2', async () => {
    expect((await runCli(['trace', join(dir, 'nope.har')], env)).code).toBe(2);
    expect((await runCli(['trace', dir], env)).code).toBe(2);
  });

  it('deep nesting anywhere in the file costs nothing and breaks nothing', async () => {
    const deep = `${'['.repeat(200_000)}${']'.repeat(200_000)}`;
    const doc = JSON.parse(flow()) as { log: { entries: Record<string, unknown>[] } };
    doc.log.entries[0]!._deep = '__DEEP__';
    (doc.log.entries[3] as { response: { content: { text: string } } }).response.content.text = '__DEEP_TEXT__';
    const text = JSON.stringify(doc).replace('"__DEEP__"', deep).replace('__DEEP_TEXT__', deep);
    const r = await check(text);
    expect(r.code === 0 || r.code === 1 || r.code === 2, r.stderr).toBe(true);
    expect(r.stderr).not.toMatch(/\n\s+at /);
    const html = await runCli(['trace', join(dir, 'x.har'), '--html', join(dir, 'deep.html')], env);
    expect(html.stderr).not.toMatch(/\n\s+at |Maximum call stack/);
  });

  it('a file naming a hundred servers: at most 8 lifelines, the rest drawn as one', async () => {
    const doc = JSON.parse(flow({ extra: Array.from({ length: 100 }, (_, i) => ({ url: `https://api${i}.example/x` })) })) as unknown;
    const r = await runCli(['trace', file('hosts.har', JSON.stringify(doc)), '--json'], env);
    const { lifelines } = JSON.parse(r.stdout) as { lifelines: { role: string }[] };
    expect(lifelines).toHaveLength(8);
    expect(lifelines.at(-1)!.role).toBe('other servers');
    const text = await runCli(['trace', join(dir, 'hosts.har')], { ...env, COLUMNS: '80' });
    expect(Math.max(...text.stdout.split('\n').map((l) => [...l].length))).toBeLessThanOrEqual(80);
  });

  it('many entries and huge fields: read with limits, drawn, checked', async () => {
    const doc = JSON.parse(flow()) as { log: { entries: unknown[] } };
    const one = doc.log.entries[0];
    for (let i = 0; i < 6000; i++) doc.log.entries.push(one);
    const big = JSON.parse(JSON.stringify(one)) as { request: { url: string } };
    big.request.url = `${ISSUER}/${'a'.repeat(2_000_000)}`;
    doc.log.entries.unshift(big);
    const started = Date.now();
    const r = await runCli(['trace', file('big.har', JSON.stringify(doc)), '--json'], env);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as { exchanges: number };
    expect(out.exchanges).toBe(5000);
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 30_000);
});

describe('a file too large to be a trace', () => {
  it('is refused before it is read: one line, exit 2', async () => {
    const { truncateSync } = await import('node:fs');
    const path = file('huge.har', '');
    truncateSync(path, 65 * 1024 * 1024);
    const r = await runCli(['trace', path], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/^oauthctl: error: .*huge\.har is 68157440 bytes, more than the 67108864/);
  });
});
