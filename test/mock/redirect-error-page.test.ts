// RFC 6749 section 4.1.2.1: a redirect URI that is not registered gets no redirect; the mock informs the
// user on its page, listing the client's registered redirect URIs, escaped.
import { afterEach, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../src/mock/index.js';

let mock: MockServer | undefined;
afterEach(async () => {
  await mock?.close();
  mock = undefined;
});

it('no redirect: a 400 page naming the registered redirect URIs (escaped), invalid_request in the log', async () => {
  mock = await createMockServer({
    clients: [{ client_id: 'app', redirect_uris: ['http://127.0.0.1/callback', 'https://app.example/cb?x=<b>"bold"</b>'], token_endpoint_auth_method: 'none' }],
  });
  const url = new URL(`${mock.authUrl}/authorize`);
  url.search = new URLSearchParams({
    response_type: 'code',
    client_id: 'app',
    redirect_uri: 'https://evil.example/cb',
    state: 's',
    code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM',
    code_challenge_method: 'S256',
  }).toString();
  const res = await fetch(url, { redirect: 'manual' });
  expect(res.status).toBe(400);
  expect(res.headers.get('location')).toBeNull();
  const html = await res.text();
  expect(html).toContain('The redirect URIs registered for this client:');
  expect(html).toContain('<li><code>http://127.0.0.1/callback</code></li>');
  expect(html).toContain('<li><code>https://app.example/cb?x=&#60;b&#62;&#34;bold&#34;&#60;/b&#62;</code></li>');
  expect(html).not.toContain('<b>');
  const logged = mock.requests().find((r) => r.path === '/authorize');
  expect(logged).toMatchObject({ error: 'invalid_request' });
});

it('an unknown client: no list (nothing is registered to show)', async () => {
  mock = await createMockServer();
  const res = await fetch(`${mock.authUrl}/authorize?response_type=code&client_id=nobody&redirect_uri=http%3A%2F%2F127.0.0.1%2Fcb`, { redirect: 'manual' });
  expect(res.status).toBe(400);
  expect(await res.text()).not.toContain('registered for this client:');
});
