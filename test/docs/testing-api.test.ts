import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import { createMockServer, type MockServer } from 'oauthctl/mock';
import { afterAll, beforeAll, expect, it } from 'vitest';

// The API under test: it takes a Bearer token the mock signed for its audience. Its clock is a
// parameter, so that the test can hand it the mock's.
function photoApi(mock: MockServer, now: () => number): Server {
  const keys = createRemoteJWKSet(new URL(`${mock.issuer}/jwks`), { cooldownDuration: 0 });
  return createServer(async (req, res) => {
    const token = /^Bearer (\S+)$/.exec(req.headers.authorization ?? '')?.[1] ?? '';
    try {
      const { payload } = await jwtVerify(token, keys, { issuer: mock.issuer, audience: mock.baseUrl, typ: 'at+jwt', currentDate: new Date(now() * 1000) });
      res.writeHead(200).end(JSON.stringify({ hello: payload.sub }));
    } catch {
      res.writeHead(401).end();
    }
  });
}

let mock: MockServer;
let api: Server;
let apiUrl: string;

beforeAll(async () => {
  mock = await createMockServer();
  api = photoApi(mock, () => mock.clock.now());
  await new Promise<void>((resolve) => api.listen(0, '127.0.0.1', resolve));
  apiUrl = `http://127.0.0.1:${(api.address() as AddressInfo).port}/`;
});

afterAll(async () => {
  await new Promise((resolve) => api.close(resolve));
  await mock.close();
});

const call = (token: string) => fetch(apiUrl, { headers: { authorization: `Bearer ${token}` } });

it('accepts a token from the mock, and refuses it once the clock has moved past its expiry', async () => {
  const { access_token } = await mock.issueToken({ sub: 'alice', scope: 'photo', expires_in: 60 });
  expect(await (await call(access_token)).json()).toEqual({ hello: 'alice' });
  mock.clock.advance(61);
  expect((await call(access_token)).status).toBe(401);
});

it('keeps accepting tokens across a key rotation', async () => {
  const before = (await mock.issueToken({ sub: 'alice' })).access_token;
  await mock.rotateKeys();
  const after = (await mock.issueToken({ sub: 'alice' })).access_token;
  expect((await call(before)).status).toBe(200);
  expect((await call(after)).status).toBe(200);
});

it('refuses tokens broken on purpose', async () => {
  for (const token of ['expired', 'bad-signature', 'wrong-issuer', 'wrong-audience', 'alg-none'] as const) {
    mock.enqueue({ token });
    const { access_token } = await mock.issueToken({ sub: 'alice' });
    expect((await call(access_token)).status).toBe(401);
  }
});
