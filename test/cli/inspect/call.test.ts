import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { createPkcePair } from '../../../src/oauth/pkce.js';
import { FAKE_BROWSER, runCli } from '../../helpers/cli.js';

let mock: MockServer;

/** A token for photo-cli from the auto-login mock, through the real authorize and token endpoints. */
async function accessToken(scope: string): Promise<string> {
  const pkce = createPkcePair();
  const redirectUri = 'http://127.0.0.1:40000/callback';
  const authorize = new URL(`${mock.authUrl}/authorize`);
  for (const [k, v] of Object.entries({
    response_type: 'code',
    client_id: 'photo-cli',
    redirect_uri: redirectUri,
    state: 's',
    scope,
    code_challenge: pkce.codeChallenge,
    code_challenge_method: 'S256',
  })) {
    authorize.searchParams.set(k, v);
  }
  const redirect = await fetch(authorize, { redirect: 'manual' });
  const code = new URL(redirect.headers.get('location') ?? '').searchParams.get('code') ?? '';
  const token = await fetch(`${mock.authUrl}/token`, {
    method: 'POST',
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirectUri, client_id: 'photo-cli', code_verifier: pkce.codeVerifier }),
  });
  return ((await token.json()) as { access_token: string }).access_token;
}

beforeAll(async () => {
  mock = await createMockServer(undefined, { autoLogin: 'alice' });
});
afterAll(async () => {
  await mock.close();
});

describe('oauthctl call', () => {
  it('sends the token as Authorization: Bearer and prints the body', async () => {
    const token = await accessToken('photo');
    const result = await runCli(['call', `${mock.baseUrl}/photos`, '--token', token]);
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toBeTypeOf('object');
    expect(result.stderr).not.toContain(token);
  });

  it('takes the token from OAUTHCTL_ACCESS_TOKEN', async () => {
    const token = await accessToken('photo');
    const result = await runCli(['call', `${mock.baseUrl}/me`], { env: { OAUTHCTL_ACCESS_TOKEN: token } });
    expect(result.code).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ sub: expect.any(String) });
  });

  it('exits 1 and shows the RFC 6750 error of an invalid token', async () => {
    const result = await runCli(['call', `${mock.baseUrl}/photos`, '--token', 'not-a-token']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/HTTP 401: invalid_token/);
    expect(
      result.stderr
        .trim()
        .split('\n')
        .filter((l) => l.startsWith('oauthctl: error')),
    ).toHaveLength(1);
  });

  it('exits 1 with insufficient_scope and names the scope the resource needs', async () => {
    const token = await accessToken('openid');
    const result = await runCli(['call', `${mock.baseUrl}/photos`, '--token', token]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/HTTP 403: insufficient_scope.*scope "photo"/);
  });

  it('sends method, headers and a JSON body as curl would', async () => {
    const seen: { method?: string; headers?: IncomingMessage['headers']; body?: string } = {};
    const server = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        Object.assign(seen, { method: req.method, headers: req.headers, body });
        res.writeHead(201, { 'content-type': 'text/plain' }).end('created');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/items`;
      const result = await runCli(['call', url, '--token', 'tok', '-X', 'put', '-H', 'X-Trace: 7', '-d', '{"a":1}']);
      expect(result.code).toBe(0);
      expect(result.stdout).toBe('created\n');
      expect(seen.method).toBe('PUT');
      expect(seen.headers?.authorization).toBe('Bearer tok');
      expect(seen.headers?.['x-trace']).toBe('7');
      expect(seen.headers?.['content-type']).toBe('application/json');
      expect(seen.body).toBe('{"a":1}');
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('-H with a repeated name sends every value, as curl does', async () => {
    let raw: string[] = [];
    const server = createServer((req, res) => {
      raw = req.rawHeaders;
      res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/items`;
      const result = await runCli(['call', url, '--token', 'tok', '-H', 'X-Tag: a', '-H', 'Accept: text/plain', '-H', 'x-tag: b', '-H', 'X-Tag: c']);
      expect(result.code).toBe(0);
      const values = (name: string) => raw.filter((_, i) => i % 2 === 1 && raw[i - 1]?.toLowerCase() === name);
      expect(values('x-tag')).toEqual(['a', 'b', 'c']);
      expect(values('accept')).toEqual(['text/plain']);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it("-H 'Transfer-Encoding: chunked' with -d sends the body in chunks, as the header says, and no Content-Length beside it", async () => {
    let seen: { te?: string; length?: string; body: string } | undefined;
    const server = createServer((req, res) => {
      let body = '';
      req.setEncoding('utf8').on('data', (d: string) => (body += d));
      req.on('end', () => {
        seen = { te: req.headers['transfer-encoding'], length: req.headers['content-length'], body };
        res.writeHead(200, { 'content-type': 'text/plain' }).end('ok');
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/items`;
      const result = await runCli(['call', url, '--token', 'tok', '-H', 'Transfer-Encoding: chunked', '-d', 'a=b']);
      expect(result.code).toBe(0);
      expect(seen).toEqual({ te: 'chunked', length: undefined, body: 'a=b' });
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('rejects a malformed header and a bad URL with exit 2', async () => {
    const header = await runCli(['call', `${mock.baseUrl}/photos`, '--token', 't', '-H', 'no colon here']);
    expect(header.code).toBe(2);
    expect(header.stderr).toMatch(/-H takes 'Name: value'/);
    const url = await runCli(['call', 'not a url', '--token', 't']);
    expect(url.code).toBe(2);
  });

  it('uses the cached login and refreshes it once when the API answers 401', async () => {
    const state = await mkdtemp(join(tmpdir(), 'oauthctl-call-'));
    const env = { XDG_STATE_HOME: state, XDG_CONFIG_HOME: state, BROWSER: FAKE_BROWSER };
    try {
      const login = await runCli(['login', '--auth-url', mock.authUrl, '--client-id', 'photo-cli', '--pkce', '--scope', 'photo offline_access', '--json', '--timeout', '20'], { env });
      expect(login.code, login.stderr).toBe(0);
      const first = JSON.parse(login.stdout) as { access_token: string };
      // Revoke the cached access token at the server (RFC 7009): the next call gets a 401.
      const revoked = await fetch(`${mock.authUrl}/revoke`, {
        method: 'POST',
        body: new URLSearchParams({ token: first.access_token, token_type_hint: 'access_token', client_id: 'photo-cli' }),
      });
      expect(revoked.status).toBe(200);
      const result = await runCli(['call', `${mock.baseUrl}/photos`, '--auth-url', mock.authUrl, '--client-id', 'photo-cli'], { env });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/answered 401; refreshing/);
      const status = await runCli(['status', '--auth-url', mock.authUrl, '--client-id', 'photo-cli'], { env });
      expect(status.code).toBe(0);
      expect(status.stderr).toMatch(/^Logged in: client photo-cli at http:\/\/127\.0\.0\.1:\d+\/token as alice\n/);
      const token = await runCli(['token', '--auth-url', mock.authUrl, '--client-id', 'photo-cli'], { env });
      expect(token.stdout.trim()).not.toBe(first.access_token);
    } finally {
      await rm(state, { recursive: true, force: true });
    }
  });

  it('says a login is needed when nothing is cached', async () => {
    const state = await mkdtemp(join(tmpdir(), 'oauthctl-call-'));
    try {
      const result = await runCli(['call', `${mock.baseUrl}/photos`], { env: { XDG_STATE_HOME: state, XDG_CONFIG_HOME: state } });
      expect(result.code).toBe(1);
      expect(result.stderr).toMatch(/no login is cached/);
    } finally {
      await rm(state, { recursive: true, force: true });
    }
  });
});
