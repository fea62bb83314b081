import { request } from 'node:http';
import { connect } from 'node:net';
import { describe, expect, it } from 'vitest';
import type { MockLogEntry } from '../../src/mock/index.js';
import { basic, pkceTokens, startMock } from './helpers.js';

/** A small seeded PRNG (mulberry32), so that a failure can be replayed. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const METHODS = ['GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'HEAD', 'TRACE'];
const PATHS = [
  '/authorize',
  '/token',
  '/login',
  '/consent',
  '/introspect',
  '/revoke',
  '/userinfo',
  '/jwks',
  '/api/photos',
  '/api/me',
  '/.well-known/openid-configuration',
  '/',
  '/%',
  '/%E0%A4%A',
  '//evil',
  '/token/',
  '/assets/mock.css',
  '/authorize/../token',
];
const KEYS = [
  'response_type',
  'client_id',
  'redirect_uri',
  'state',
  'scope',
  'code_challenge',
  'code_challenge_method',
  'grant_type',
  'code',
  'code_verifier',
  'refresh_token',
  'client_secret',
  'token',
  'token_type_hint',
  'interaction',
  'csrf_token',
  'username',
  'password',
  'decision',
  'prompt',
  'nonce',
  'x',
];
const VALUES = [
  'code',
  'token',
  'photo-cli',
  'photo-web',
  'http://127.0.0.1:1/callback',
  'http://[::1]:99999/callback',
  'authorization_code',
  'refresh_token',
  'S256',
  'plain',
  'photo offline_access openid',
  '',
  '%',
  '%ZZ',
  '\u0000',
  '\uD800',
  'a'.repeat(300),
  'alice',
  'wonderland',
  'allow',
  'deny',
  'none',
  '🦄',
  '"\'<>',
  'x.y.z',
  'eyJhbGciOiJub25lIn0.e30.',
];
const CONTENT_TYPES = ['application/x-www-form-urlencoded', 'application/json', 'text/plain', 'multipart/form-data; boundary=x', 'application/x-www-form-urlencoded; charset=utf-8', ''];
const AUTHS = [
  '',
  'Basic',
  'Basic !!!',
  'Basic Og==',
  'Basic ' + Buffer.from('%ZZ:%').toString('base64'),
  basic('photo-web', 'photo-web-secret'),
  'Bearer',
  'Bearer a.b.c',
  'Bearer ' + 'x'.repeat(5000),
  'Digest x',
  'bearer e30.e30.e30',
];

function send(port: number, method: string, path: string, headers: Record<string, string>, body?: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ host: '127.0.0.1', port, method, path, headers, agent: false }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
    req.end(body);
  });
}

describe('fuzz: malformed requests never get a 5xx and never stop the server', () => {
  it('random methods, paths, queries, bodies and headers', async () => {
    const entries: MockLogEntry[] = [];
    const server = await startMock(undefined, { log: (e) => entries.push(e) });
    const tokens = await pkceTokens(await startMock(undefined, { autoLogin: 'alice' }), 'photo offline_access');
    const pick = <T>(r: () => number, list: readonly T[]): T => list[Math.floor(r() * list.length)]!;
    const r = rng(20240601);
    const statuses = new Map<number, number>();
    for (let i = 0; i < 600; i++) {
      const params: string[] = [];
      const n = Math.floor(r() * 9);
      for (let j = 0; j < n; j++) {
        const key = pick(r, KEYS);
        const value = r() < 0.1 ? String(tokens.access_token) : pick(r, VALUES);
        params.push(r() < 0.15 ? `${key}=${value}` : `${encodeURIComponent(key)}=${value.includes('\uD800') ? '%ED%A0%80' : encodeURIComponent(value)}`);
      }
      const query = params.join('&');
      const method = pick(r, METHODS);
      const inBody = method !== 'GET' && method !== 'HEAD' && r() < 0.8;
      const path = pick(r, PATHS) + (!inBody && query ? `?${query}` : '');
      const headers: Record<string, string> = {};
      const type = pick(r, CONTENT_TYPES);
      if (type) headers['content-type'] = type;
      const auth = pick(r, AUTHS);
      if (auth) headers.authorization = auth;
      if (r() < 0.2) headers.cookie = `oauthctl_mock_session_${server.port}=${pick(r, VALUES).replace(/[^\x21-\x7e]/g, '')}; x=y`;
      let body: Buffer | undefined;
      if (inBody) body = r() < 0.1 ? Buffer.from(Array.from({ length: 200 }, () => Math.floor(r() * 256))) : r() < 0.05 ? Buffer.alloc(70_000, 'a') : Buffer.from(query);
      let status: number;
      try {
        status = await send(server.port, method, path.replace(/[^\x21-\x7e]/g, '_'), headers, body);
      } catch (err) {
        // The server may close a connection after a 413; anything else is a failure.
        if ((err as NodeJS.ErrnoException).code !== 'ECONNRESET' && (err as NodeJS.ErrnoException).code !== 'EPIPE') throw err;
        continue;
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      expect(status, `${method} ${path}`).toBeLessThan(500);
    }
    expect([...statuses.keys()].some((s) => s >= 400)).toBe(true);
    expect(entries.filter((e) => e.status >= 500)).toEqual([]);

    // Garbage that is not HTTP at all.
    for (const raw of ['GARBAGE\r\n\r\n', 'GET / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n', 'POST /token HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n']) {
      await new Promise<void>((resolve) => {
        const socket = connect(server.port, '127.0.0.1', () => socket.end(raw));
        socket.on('data', (d: Buffer) => expect(d.toString()).not.toMatch(/^HTTP\/1\.1 5/));
        socket.on('close', () => resolve());
        socket.on('error', () => resolve());
      });
    }

    // Still serving.
    const meta = await fetch(`${server.issuer}/.well-known/oauth-authorization-server`);
    expect(meta.status).toBe(200);
  });
});
