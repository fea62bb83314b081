import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createMockServer } from 'oauthctl/mock';

// The service under test gets its token with the client credentials grant (RFC 6749 section 4.4).
async function serviceToken(tokenEndpoint) {
  const res = await fetch(tokenEndpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'client_credentials', client_id: 'photo-service', client_secret: 'photo-service-secret', scope: 'photo' }),
  });
  if (!res.ok) throw new Error(`token endpoint answered ${res.status}`);
  return (await res.json()).access_token;
}

let mock;
before(async () => {
  mock = await createMockServer();
});
after(() => mock.close());

test("gets a token the mock's API accepts", async () => {
  const token = await serviceToken(`${mock.authUrl}/token`);
  const photos = await fetch(`${mock.baseUrl}/photos`, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(photos.status, 200);
});

test('reports a token endpoint that is down', async () => {
  mock.enqueue({ endpoint: 'token', status: 503 });
  await assert.rejects(serviceToken(`${mock.authUrl}/token`), /answered 503/);
});
