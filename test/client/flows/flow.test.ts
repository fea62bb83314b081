import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { Readable, Writable } from 'node:stream';
import { runAuthorizationCodeFlow } from '../../../src/client/flows/flow.js';
import { createHttpClient, type HttpClient } from '../../../src/client/http/http.js';
import type { RedirectCapture, RedirectReceiver } from '../../../src/client/listeners/listener.js';
import type { UserAgent } from '../../../src/client/flows/user-agent.js';
import { parseFlowOptions } from '../../../src/cli/options/flow-options.js';
import type { FlowConfig } from '../../../src/client/flows/flow-config.js';
import type { IO } from '../../../src/output/io.js';
import { FlowError } from '../../../src/errors.js';
import { createRenderer } from '../../../src/output/render.js';
import { startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';

let as: RecordingServer;
let http: HttpClient;
beforeAll(async () => {
  as = await startRecordingServer();
  http = createHttpClient({ env: {} });
});
afterAll(async () => {
  await http.close();
  await as.close();
});
beforeEach(() => as.reset());

function quietIO(): IO {
  const sink = new Writable({ write: (_c, _e, cb) => cb() });
  return { stdout: sink, stderr: sink, stdin: Readable.from([]), env: {} };
}

function config(extra: Record<string, unknown> = {}): FlowConfig {
  const parsed = parseFlowOptions({ authUrl: as.url, clientId: 'photo-cli', pkce: true, ...extra });
  const { discover: _discover, ...rest } = parsed;
  return { ...rest, authorizationEndpoint: rest.authorizationEndpoint ?? '', tokenEndpoint: rest.tokenEndpoint ?? '' };
}

/** A user agent that does what a browser would: follow the authorization redirect to the listener. */
const fetchingAgent: UserAgent = async ({ authorizationUrl }) => {
  const res = await fetch(authorizationUrl, { redirect: 'manual' });
  await fetch(res.headers.get('location') ?? '');
};

function run(userAgent: UserAgent, extra: Partial<Parameters<typeof runAuthorizationCodeFlow>[0]> = {}) {
  const io = quietIO();
  return runAuthorizationCodeFlow({ config: config(), userAgent, timeoutMs: 10_000, http, renderer: createRenderer(io), io, ...extra });
}

describe('runAuthorizationCodeFlow', () => {
  it('returns the token response, the redirect URI used and the capture', async () => {
    const result = await run(fetchingAgent);
    expect(result.tokenResponse.access_token).toMatch(/^at-/);
    expect(result.redirectUri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(result.capture.via).toBe('query');
    expect(new URL(result.authorizationUrl).searchParams.get('redirect_uri')).toBe(result.redirectUri);
  });

  it("fails with the user agent's error when it rejects, and sends no token request", async () => {
    const failing: UserAgent = async () => {
      throw new FlowError('login failed at http://as/login: the server showed the login form again');
    };
    await expect(run(failing)).rejects.toThrow('login failed at http://as/login');
    const plainError: UserAgent = async () => {
      throw new Error('boom');
    };
    await expect(run(plainError)).rejects.toThrow(/the user agent failed: boom/);
    expect(as.to('/token')).toHaveLength(0);
  });

  it('gives the user agent the authorization URL, the redirect URI and a signal aborted when the flow ends', async () => {
    let seen: { url: string; redirectUri: string; signal: AbortSignal } | undefined;
    const agent: UserAgent = async (ctx) => {
      seen = { url: ctx.authorizationUrl, redirectUri: ctx.redirectUri, signal: ctx.signal };
      await fetchingAgent(ctx);
    };
    await run(agent);
    expect(seen?.url).toContain(encodeURIComponent(seen?.redirectUri ?? 'x'));
    expect(seen?.signal.aborted).toBe(true);
  });

  it('takes the redirect from another receiver (e.g. a pasted URL) and checks state first', async () => {
    let closed = false;
    const pasted =
      (state: string): ((c: FlowConfig) => Promise<RedirectReceiver>) =>
      async () => ({
        redirectUri: 'com.example.app:/callback',
        waitForRedirect: async (): Promise<RedirectCapture> => ({ via: 'query', params: { code: 'x', state }, url: 'com.example.app:/callback?code=x', method: 'GET' }),
        close: async () => {
          closed = true;
        },
      });
    const noop: UserAgent = async () => undefined;
    await expect(run(noop, { receiveRedirect: pasted('wrong') })).rejects.toThrow(/state mismatch/);
    expect(closed).toBe(true);
    expect(as.requests).toHaveLength(0);
  });

  it('times out', async () => {
    const noop: UserAgent = async () => undefined;
    await expect(run(noop, { timeoutMs: 200 })).rejects.toThrow(/timed out after 0 s waiting for the redirect/);
  });
});
