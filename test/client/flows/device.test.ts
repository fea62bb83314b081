import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { pollForDeviceTokens, requestDeviceAuthorization } from '../../../src/client/flows/device.js';
import type { FlowConfig } from '../../../src/client/flows/flow-config.js';
import { createHttpClient } from '../../../src/client/http/http.js';
import { FlowError } from '../../../src/errors.js';
import type { DeviceAuthorizationResponse } from '../../../src/oauth/device.js';

/** A token endpoint that answers the scripted bodies in turn (400 for errors) and records each form. */
async function scriptedServer(answers: Record<string, unknown>[]): Promise<{ url: string; forms: URLSearchParams[]; server: Server }> {
  const forms: URLSearchParams[] = [];
  const server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      forms.push(new URLSearchParams(body));
      const answer = answers[Math.min(forms.length - 1, answers.length - 1)]!;
      res.writeHead('error' in answer ? 400 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(answer));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  running.push(server);
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, forms, server };
}

const running: Server[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

const config = (url: string): FlowConfig => ({
  authorizationEndpoint: '',
  tokenEndpoint: `${url}/token`,
  endpoints: {},
  clientId: 'tv',
  authMethod: 'none',
  redirectUri: 'http://127.0.0.1/callback',
  scopes: ['photo'],
  state: 's',
  extraParams: {},
  resources: ['https://api.example/'],
});
const device: DeviceAuthorizationResponse = { device_code: 'dc-1', user_code: 'BCDF-GHJK', verification_uri: 'http://as.example/device', expires_in: 600, interval: 2 };

/** A clock that only moves when the poller sleeps: no real waiting, and every wait is recorded. */
function fakeTime() {
  let t = 0;
  const waits: number[] = [];
  return { waits, now: () => t, sleep: async (ms: number) => void (waits.push(ms), (t += ms)) };
}

describe('polling the token endpoint with a device code (RFC 8628 section 3.4, 3.5)', () => {
  it('waits the interval before every poll, 5 s more for good after slow_down, and sends the device_code grant', async () => {
    const s = await scriptedServer([{ error: 'authorization_pending' }, { error: 'slow_down' }, { error: 'authorization_pending' }, { access_token: 'at', token_type: 'Bearer' }]);
    const time = fakeTime();
    const http = createHttpClient();
    const tokens = await pollForDeviceTokens(http, config(s.url), device, { timeoutMs: 60_000, sleep: time.sleep, now: time.now });
    await http.close();
    expect(tokens.access_token).toBe('at');
    expect(time.waits).toEqual([2000, 2000, 7000, 7000]);
    // The token request carries the resources too (RFC 8707 section 2.2), as every token request of the client does.
    expect(Object.fromEntries(s.forms[0]!)).toEqual({ grant_type: 'urn:ietf:params:oauth:grant-type:device_code', device_code: 'dc-1', client_id: 'tv', resource: 'https://api.example/' });
  });

  it('5 s when the server names no interval', async () => {
    const s = await scriptedServer([{ access_token: 'at' }]);
    const time = fakeTime();
    const http = createHttpClient();
    await pollForDeviceTokens(http, config(s.url), { ...device, interval: undefined }, { timeoutMs: 60_000, sleep: time.sleep, now: time.now });
    await http.close();
    expect(time.waits).toEqual([5000]);
  });

  it('access_denied and expired_token end the flow with one line; so does a timeout, before the code expires', async () => {
    const http = createHttpClient();
    for (const [error, message] of [
      // Named by its code, as the code flow names it, and in words.
      ['access_denied', /^the authorization server answered access_denied$/],
      ['expired_token', /^the authorization server answered expired_token$/],
      ['invalid_grant', /invalid_grant/],
    ] as const) {
      const s = await scriptedServer([{ error }]);
      const time = fakeTime();
      const err = await pollForDeviceTokens(http, config(s.url), device, { timeoutMs: 60_000, sleep: time.sleep, now: time.now }).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(FlowError);
      expect((err as Error).message).toMatch(message);
      if (error === 'access_denied') expect((err as FlowError).hint).toBe('the user denied access at the verification page: start again and approve the request');
    }
    const s = await scriptedServer([{ error: 'authorization_pending' }]);
    const time = fakeTime();
    const err = await pollForDeviceTokens(http, config(s.url), device, { timeoutMs: 9000, sleep: time.sleep, now: time.now }).catch((e: unknown) => e);
    expect((err as Error).message).toMatch(/timed out after 9 s/);
    expect(s.forms).toHaveLength(4); // at 2, 4, 6 and 8 s; a fifth at 10 s would be past the 9 s
    const expiring = await scriptedServer([{ error: 'authorization_pending' }]);
    const clock = fakeTime();
    const late = await pollForDeviceTokens(http, config(expiring.url), { ...device, expires_in: 5 }, { timeoutMs: 60_000, sleep: clock.sleep, now: clock.now }).catch((e: unknown) => e);
    expect((late as Error).message).toMatch(/device code expired after 5 s/);
    await http.close();
  });
});

describe('the device authorization request (RFC 8628 section 3.1)', () => {
  it('sends client_id, scope and each resource; refuses a response without a user code', async () => {
    const s = await scriptedServer([
      { device_code: 'd', user_code: 'U', verification_uri: 'http://x/device', expires_in: 60 },
      { device_code: 'd', verification_uri: 'http://x/device', expires_in: 60 },
    ]);
    const http = createHttpClient();
    const first = await requestDeviceAuthorization(http, config(s.url), `${s.url}/device_authorization`);
    expect(first.user_code).toBe('U');
    expect(s.forms[0]!.toString()).toBe('scope=photo&resource=https%3A%2F%2Fapi.example%2F&client_id=tv');
    await expect(requestDeviceAuthorization(http, config(s.url), `${s.url}/device_authorization`)).rejects.toThrow(/no user_code/);
    await http.close();
  });
});
