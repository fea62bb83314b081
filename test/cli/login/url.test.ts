import { describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { runCli } from '../../helpers/cli.js';

const base = ['url', '--auth-url', 'https://as.example/', '--client-id', 'photo-cli'];

describe('url', () => {
  it('prints the authorization URL with fresh state on stdout', async () => {
    const r = await runCli([...base, '--scope', 'photo+offline_access', '--scope', 'openid']);
    expect(r.code).toBe(0);
    const url = new URL(r.stdout.trim());
    expect(url.origin + url.pathname).toBe('https://as.example/authorize');
    const q = Object.fromEntries(url.searchParams);
    expect(q).toMatchObject({ response_type: 'code', client_id: 'photo-cli', redirect_uri: 'http://127.0.0.1/callback', scope: 'photo offline_access openid' });
    // 128 bits at least: 22 base64url characters.
    expect(q.state).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(q.nonce).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(r.stderr).toContain(`state=${q.state}`);
  });

  it('--json with --pkce: {"url","state","code_verifier"}, the challenge matching the verifier', async () => {
    const r = await runCli([...base, '--pkce', '--json', '--param', 'prompt=consent', '--param', 'login_hint=a=b']);
    expect(r.code).toBe(0);
    const out = JSON.parse(r.stdout) as { url: string; state: string; code_verifier: string };
    expect(Object.keys(out)).toEqual(['url', 'state', 'code_verifier']);
    const q = new URL(out.url).searchParams;
    expect(q.get('state')).toBe(out.state);
    expect(q.get('code_challenge')).toBe(createHash('sha256').update(out.code_verifier).digest('base64url'));
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('prompt')).toBe('consent');
    expect(q.get('login_hint')).toBe('a=b');
  });

  it('uses a given state, verifier and plain method', async () => {
    const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
    const r = await runCli([...base, '--state', 'my state', '--code-verifier', verifier, '--json']);
    const out = JSON.parse(r.stdout) as { url: string; state: string; code_verifier: string };
    expect(out.state).toBe('my state');
    expect(new URL(out.url).searchParams.get('code_challenge')).toBe('E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM');
    const plain = JSON.parse((await runCli([...base, '--code-verifier', verifier, '--code-challenge-method', 'plain', '--json'])).stdout) as { url: string };
    expect(new URL(plain.url).searchParams.get('code_challenge')).toBe(verifier);
    expect(new URL(plain.url).searchParams.get('code_challenge_method')).toBe('plain');
  });

  it('sends an S256 code challenge by default (RFC 9700 section 2.1.1); --pkce changes nothing', async () => {
    for (const extra of [[], ['--pkce']]) {
      const out = JSON.parse((await runCli([...base, ...extra, '--json'])).stdout) as { url: string; code_verifier: string };
      const q = new URL(out.url).searchParams;
      expect(q.get('code_challenge_method')).toBe('S256');
      expect(q.get('code_challenge')).toBe(createHash('sha256').update(out.code_verifier).digest('base64url'));
    }
  });

  it('with --no-pkce: no code_challenge, and no code_verifier in the JSON', async () => {
    const r = await runCli([...base, '--no-pkce', '--json']);
    expect(new URL((JSON.parse(r.stdout) as { url: string }).url).searchParams.has('code_challenge')).toBe(false);
    expect(Object.keys(JSON.parse(r.stdout) as object)).toEqual(['url', 'state']);
  });

  it('--authorization-endpoint overrides --auth-url', async () => {
    const r = await runCli([...base, '--authorization-endpoint', 'https://login.example/oauth2/auth?tenant=1']);
    const url = new URL(r.stdout.trim());
    expect(url.origin + url.pathname).toBe('https://login.example/oauth2/auth');
    expect(url.searchParams.get('tenant')).toBe('1');
  });
});
