import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';
import { runCli } from '../../helpers/cli.js';

let as: RecordingServer;
beforeAll(async () => {
  as = await startRecordingServer();
});
afterAll(() => as.close());
beforeEach(() => as.reset());

describe('exchange', () => {
  it('sends one authorization_code request with redirect_uri and code_verifier', async () => {
    as.token = { body: { access_token: 'at-1', token_type: 'Bearer' } };
    const verifier = 'v'.repeat(43);
    const r = await runCli(['exchange', '--code', 'c0de', '--auth-url', as.url, '--client-id', 'photo-cli', '--redirect-uri', 'http://127.0.0.1:8765/callback', '--code-verifier', verifier, '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ access_token: 'at-1', token_type: 'Bearer' });
    expect(as.requests).toHaveLength(1);
    expect(as.requests[0]?.form).toEqual({ grant_type: 'authorization_code', code: 'c0de', redirect_uri: 'http://127.0.0.1:8765/callback', code_verifier: verifier, client_id: 'photo-cli' });
  });

  it('an invalid_grant answer is one line, exit 1', async () => {
    const r = await runCli(['exchange', '--code', 'bad', '--auth-url', as.url, '--client-id', 'web', '--client-secret', 's']);
    expect(r.code).toBe(1);
    expect(r.stderr.trim().split('\n').pop()).toMatch(/^oauthctl: error: invalid_grant: unknown code \(the code or refresh token is invalid/);
  });

  it('works with only --token-endpoint', async () => {
    as.token = { body: { access_token: 'at-2' } };
    const r = await runCli(['exchange', '--code', 'c', '--token-endpoint', `${as.url}/token`, '--client-id', 'photo-cli']);
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('access_token=at-2\n');
  });
});

describe('refresh', () => {
  it('sends grant_type=refresh_token with the refresh token and an optional scope', async () => {
    const r = await runCli(['refresh', '--refresh-token', 'rt-old', '--auth-url', as.url, '--client-id', 'web', '--client-secret', 'sec', '--scope', 'photo', '--json']);
    expect(r.code).toBe(0);
    expect(JSON.parse(r.stdout)).toMatchObject({ token_type: 'Bearer', refresh_token: 'rt-new' });
    const [req] = as.requests;
    expect(req?.form).toEqual({ grant_type: 'refresh_token', refresh_token: 'rt-old', scope: 'photo' });
    expect(Buffer.from(String(req?.headers.authorization).slice(6), 'base64').toString()).toBe('web:sec');
  });

  it('keeps the refresh token out of logs unless --show-secrets', async () => {
    const r = await runCli(['refresh', '--refresh-token', 'rt-very-secret', '--auth-url', as.url, '--client-id', 'c', '--verbose']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('refresh_token=[redacted 14 chars]');
    expect(r.stderr).not.toContain('rt-very-secret');
  });

  it('--json prints nothing but the one JSON document even with --verbose', async () => {
    const r = await runCli(['refresh', '--refresh-token', 'x', '--auth-url', as.url, '--client-id', 'c', '--verbose', '--json']);
    expect(r.code).toBe(0);
    expect(() => JSON.parse(r.stdout)).not.toThrow();
    expect(r.stdout.trim().startsWith('{')).toBe(true);
  });
});

describe('token narration', () => {
  it('shows the decoded header and claims of a JWT token, times in human form, without the token itself', async () => {
    const enc = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const exp = Math.floor(Date.now() / 1000) + 600;
    const jwt = `${enc({ alg: 'RS256', typ: 'at+jwt', kid: 'k1' })}.${enc({ sub: 'alice', scope: 'photo', exp })}.c2lnbmF0dXJl`;
    as.token = { body: { access_token: jwt, token_type: 'Bearer', expires_in: 600 } };
    const r = await runCli(['exchange', '--code', 'c', '--auth-url', as.url, '--client-id', 'photo-cli']);
    expect(r.code).toBe(0);
    expect(r.stderr).toContain('access_token is a JWT');
    expect(r.stderr).toContain('"typ":"at+jwt"');
    expect(r.stderr).toContain('sub: alice');
    expect(r.stderr).toMatch(new RegExp(`exp: ${exp} = \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d:\\d\\d UTC \\(in (9|10) min\\)`));
    expect(r.stderr).not.toContain(jwt);
    expect(r.stdout).toBe(`access_token=${jwt}\ntoken_type=Bearer\nexpires_in=600\n`);
  });
});
