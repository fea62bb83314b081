// A hostile device authorization server on loopback. Its verification_uri
// carries escape sequences (which the spinner redrew raw every 100 ms), is not a web page at all
// (file:, javascript:, smb:), or its interval is 0 (a tight polling loop).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { runDeviceLogin } from '../../src/cli/login/login-device.js';
import { pollForDeviceTokens } from '../../src/client/flows/device.js';
import { createHttpClient } from '../../src/client/http/http.js';
import { parseDeviceAuthorizationResponse, DeviceAuthorizationResponseError } from '../../src/oauth/device.js';
import type { IO } from '../../src/output/io.js';
import { FAKE_BROWSER } from '../helpers/cli.js';

const HOSTILE_PATH = '/device\x1b]52;c;SGVsbG8=\x07\x1b[2J\u009b31m';

interface DeviceServer {
  url: string;
  tokenRequests: () => number;
}

const running: Server[] = [];
afterEach(async () => {
  await Promise.all(running.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** A device authorization endpoint that answers `device`, and a token endpoint that keeps answering `poll`. */
async function deviceServer(device: (url: string) => Record<string, unknown>, poll: Record<string, unknown> = { error: 'authorization_pending' }): Promise<DeviceServer> {
  let polls = 0;
  let url = '';
  const server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      if (req.url === '/device_authorization') {
        res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(device(url)));
        return;
      }
      polls++;
      res.writeHead('error' in poll ? 400 : 200, { 'content-type': 'application/json' }).end(JSON.stringify(poll));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  running.push(server);
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { url, tokenRequests: () => polls };
}

/** An IO whose stderr is a terminal (so the spinner spins), collecting everything written. */
function terminalIO(): IO & { err: () => string } {
  const stderr = new PassThrough() as PassThrough & { isTTY: boolean; columns: number };
  stderr.isTTY = true;
  stderr.columns = 100;
  const stdout = new PassThrough();
  let err = '';
  stderr.on('data', (c: Buffer) => (err += c.toString()));
  stdout.resume();
  return { stdout, stderr, stdin: new PassThrough(), env: { NO_COLOR: '1', BROWSER: FAKE_BROWSER }, err: () => err };
}

const login = (url: string, io: IO, timeout = 3000) =>
  runDeviceLogin(
    { authUrl: url, deviceAuthorizationEndpoint: `${url}/device_authorization`, clientId: 'tv', scope: ['photo'], browser: false, cache: false } as Parameters<typeof runDeviceLogin>[0],
    io,
    timeout,
  );

describe('the device flow against a hostile server', () => {
  it('the spinner line escapes the verification_uri: no OSC 52, clear screen or C1 CSI reaches the terminal', async () => {
    const as = await deviceServer(
      (url) => ({
        device_code: 'dc',
        user_code: 'BCDF\x1b]0;title\x07GHJK',
        verification_uri: `${url}${HOSTILE_PATH}`,
        verification_uri_complete: `${url}${HOSTILE_PATH}?c=\x1b[5m`,
        expires_in: 600,
        interval: 1,
      }),
      { error: 'access_denied', error_description: 'no\x1b[2Jway' },
    );
    const io = terminalIO();
    await expect(login(as.url, io)).rejects.toThrow(/denied/);
    const err = io.err();
    // The spinner draws with \r ESC[2K and nothing else: every other ESC is a server's, and must be escaped.
    const withoutSpinner = err.replaceAll('\r\x1b[2K', '');
    expect(withoutSpinner).not.toContain('\x1b');
    expect(withoutSpinner).not.toContain('\u009b');
    expect(withoutSpinner).not.toContain('\x07');
    expect(err).toContain('Waiting for the sign-in at');
    expect(err).toContain('\\x1b]52;c;SGVsbG8=\\x07\\x1b[2J\\x9b31m');
  });

  for (const uri of ['file:///etc/passwd', 'javascript:alert(1)', 'smb://attacker.example/share', 'not a url']) {
    it(`a verification_uri ${JSON.stringify(uri)} is refused in one line, before any browser or poll`, async () => {
      const as = await deviceServer(() => ({ device_code: 'dc', user_code: 'BCDF-GHJK', verification_uri: uri, expires_in: 600, interval: 1 }));
      const io = terminalIO();
      await expect(login(as.url, io)).rejects.toThrow(/verification_uri of the device authorization response is not an http\(s\) URL \(RFC 8628 section 3\.2/);
      expect(as.tokenRequests()).toBe(0);
    });
  }

  it('a verification_uri_complete that is not a web page is refused too', () => {
    const parse = () =>
      parseDeviceAuthorizationResponse(
        200,
        JSON.stringify({ device_code: 'd', user_code: 'u', verification_uri: 'https://as.example/device', verification_uri_complete: 'javascript:fetch(1)', expires_in: 60 }),
      );
    expect(parse).toThrow(DeviceAuthorizationResponseError);
    expect(parse).toThrow(/verification_uri_complete .* not an http\(s\) URL/);
  });

  it('interval 0 polls at most once a second, not in a tight loop', async () => {
    const as = await deviceServer(() => ({}));
    const http = createHttpClient({ env: {} });
    const controller = new AbortController();
    const device = { device_code: 'dc', user_code: 'u', verification_uri: `${as.url}/device`, expires_in: 600, interval: 0 };
    const config = {
      authorizationEndpoint: '',
      tokenEndpoint: `${as.url}/token`,
      endpoints: {},
      clientId: 'tv',
      authMethod: 'none' as const,
      redirectUri: '',
      scopes: [],
      state: 's',
      extraParams: {},
      resources: [],
    };
    const started = Date.now();
    const polling = pollForDeviceTokens(http, config, device, { timeoutMs: 60_000, signal: controller.signal }).catch(() => undefined);
    await new Promise((resolve) => setTimeout(resolve, 2500));
    controller.abort(new Error('stop'));
    await polling;
    await http.close();
    const perSecond = as.tokenRequests() / ((Date.now() - started) / 1000);
    // 1,326 requests in 3.2 s before; now one a second (2 in 2.5 s).
    expect(as.tokenRequests()).toBeGreaterThanOrEqual(1);
    expect(perSecond).toBeLessThanOrEqual(1.2);
  });
});
