import { createMockServer, type MockServer } from 'oauthctl/mock';
import { afterAll, beforeAll, beforeEach, expect, it } from 'vitest';

// The client under test: it refreshes its access token, and tries again when the server is
// briefly unavailable (5xx), three attempts at most.
async function refresh(tokenEndpoint: string, refreshToken: string): Promise<{ access_token: string }> {
  for (let attempt = 1; ; attempt++) {
    const res = await fetch(tokenEndpoint, {
      method: 'POST',
      headers: { authorization: `Basic ${btoa('photo-web:photo-web-secret')}` },
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: refreshToken }),
    });
    if (res.ok) return (await res.json()) as { access_token: string };
    if (res.status < 500 || attempt === 3) throw new Error(`token endpoint: ${res.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100 * attempt));
  }
}

let mock: MockServer;
beforeAll(async () => {
  mock = await createMockServer();
});
beforeEach(() => mock.reset());
afterAll(() => mock.close());

it('survives two failures of the token endpoint', async () => {
  const { refresh_token } = await mock.issueToken({ sub: 'alice', client_id: 'photo-web', scope: 'photo offline_access' });
  mock.enqueue({ endpoint: 'token', status: 503, times: 2 });
  const tokens = await refresh(`${mock.authUrl}/token`, refresh_token!);
  expect(tokens.access_token).toBeTruthy();
  expect(mock.requests().map((r) => `${r.path} ${r.status}`)).toEqual(['/token 503', '/token 503', '/token 200']);
});

it('gives up after three slow failures', async () => {
  const { refresh_token } = await mock.issueToken({ sub: 'alice', client_id: 'photo-web', scope: 'photo offline_access' });
  mock.enqueue({ endpoint: 'token', status: 500, error: 'server_error', delay_ms: 200, times: 3 });
  await expect(refresh(`${mock.authUrl}/token`, refresh_token!)).rejects.toThrow('token endpoint: 500');
});

it('does not retry what retrying cannot fix', async () => {
  mock.enqueue({ endpoint: 'token', error: 'invalid_grant', error_description: 'the refresh token was revoked' });
  await expect(refresh(`${mock.authUrl}/token`, 'any')).rejects.toThrow('token endpoint: 400');
  expect(mock.requests()).toHaveLength(1);
});
