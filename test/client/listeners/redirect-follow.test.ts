// --step: an edited redirect_uri is followed by the listener (the same one on another path, or a new
// one on another loopback port) or refused with the reason; real listeners on 127.0.0.1.
import { createServer, type Server } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { startRedirectListener, type RedirectListener, type RedirectReceiver } from '../../../src/client/listeners/listener.js';
import { followRedirectUri } from '../../../src/client/listeners/redirect-follow.js';
import { stoppedOnPage } from '../../../src/agent/headless/page-errors.js';

const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((c) => c()));
});

async function listener(): Promise<RedirectListener> {
  const l = await startRedirectListener({ redirectUri: 'http://127.0.0.1/callback', expectedState: 's1' });
  closers.push(() => l.close());
  return l;
}

/** A port that was free a moment ago (bound, then released). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function taken(): Promise<number> {
  const server: Server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(() => new Promise((resolve) => server.close(() => resolve())));
  return (server.address() as { port: number }).port;
}

function followed(result: Awaited<ReturnType<typeof followRedirectUri>>): RedirectReceiver {
  if (!('receiver' in result)) throw new Error(`refused: ${result.refused}`);
  closers.push(() => result.receiver.close());
  return result.receiver;
}

describe('followRedirectUri', () => {
  it('on the same port: the same listener serves the new path, and the old one is a 404 marked as the listener’s', async () => {
    const l = await listener();
    const moved = `http://127.0.0.1:${l.port}/other`;
    const receiver = followed(await followRedirectUri(l, moved, {}));
    expect(receiver.redirectUri).toBe(moved);
    const old = await fetch(`http://127.0.0.1:${l.port}/callback?code=c&state=s1`);
    expect(old.status).toBe(404);
    expect(old.headers.get('x-oauthctl-listener')).toBe('1');
    expect(await old.text()).toBe("Not found: oauthctl's redirect listener does not wait here\n");
    const waiting = receiver.waitForRedirect();
    expect((await fetch(`${moved}?code=c&state=s1`)).status).toBe(200);
    expect(await waiting).toMatchObject({ via: 'query', params: { code: 'c', state: 's1' } });
  });

  it('localhost on the same port is the same listener (it binds 127.0.0.1 for that name); the URI is kept as written', async () => {
    const l = await listener();
    const moved = `http://localhost:${l.port}/callback`;
    const receiver = followed(await followRedirectUri(l, moved, {}));
    expect(receiver.redirectUri).toBe(moved);
    const waiting = receiver.waitForRedirect();
    await fetch(`http://127.0.0.1:${l.port}/callback?code=c&state=s1`, { headers: { host: `localhost:${l.port}` } });
    expect((await waiting).params.code).toBe('c');
  });

  it('on another loopback port: a new listener there, and the old one closed', async () => {
    const l = await listener();
    const port = await freePort();
    const moved = `http://127.0.0.1:${port}/elsewhere`;
    const receiver = followed(await followRedirectUri(l, moved, { expectedState: 's1' }));
    expect(receiver.redirectUri).toBe(moved);
    await expect(fetch(`http://127.0.0.1:${l.port}/callback`)).rejects.toThrow();
    const waiting = receiver.waitForRedirect();
    expect((await fetch(`${moved}?code=c2&state=s1`)).status).toBe(200);
    expect((await waiting).params.code).toBe('c2');
  });

  it.each([
    ['https://app.example/callback', 'oauthctl can receive a redirect only at a loopback http URI (RFC 8252 section 7.3), such as http://127.0.0.1:PORT/path'],
    ['http://10.0.0.1:8080/callback', 'oauthctl can receive a redirect only at a loopback http URI (RFC 8252 section 7.3), such as http://127.0.0.1:PORT/path'],
    ['not a url', 'it is not a URL'],
    ['http://127.0.0.1:PORT/cb#frag', 'a redirect URI must not have a fragment (RFC 6749 section 3.1.2)'],
  ])('refuses %s, saying why, and the listener stays where it was', async (edited, why) => {
    const l = await listener();
    const uri = edited.replace('PORT', String(l.port));
    expect(await followRedirectUri(l, uri, {})).toEqual({ refused: `redirect_uri ${JSON.stringify(uri)} was not sent: ${why}` });
    expect(l.path).toBe('/callback');
  });

  it('refuses a URI without a port, naming the one to write', async () => {
    const l = await listener();
    expect(await followRedirectUri(l, 'http://127.0.0.1/other', {})).toEqual({
      refused: `redirect_uri "http://127.0.0.1/other" was not sent: it names no port; write one, e.g. the listener's: http://127.0.0.1:${l.port}/other`,
    });
  });

  it('refuses a port in use, with the reason, and keeps the listener it had', async () => {
    const l = await listener();
    const port = await taken();
    const result = await followRedirectUri(l, `http://127.0.0.1:${port}/callback`, {});
    expect(result).toEqual({ refused: `redirect_uri "http://127.0.0.1:${port}/callback" was not sent: port ${port} on 127.0.0.1 is already in use, so the redirect cannot be received there` });
    const waiting = l.waitForRedirect();
    await fetch(`${l.redirectUri}?code=c&state=s1`);
    expect((await waiting).params.code).toBe('c');
  });

  it('refuses to move a receiver that is not a listener (a pasted redirect)', async () => {
    const pasted: RedirectReceiver = { redirectUri: 'https://app.example/cb', pasted: true, waitForRedirect: () => new Promise(() => undefined), close: async () => undefined };
    expect(await followRedirectUri(pasted, 'https://app.example/other', {})).toEqual({
      refused: 'redirect_uri "https://app.example/other" was not sent: this login receives its redirect at https://app.example/cb and cannot move; give --redirect-uri instead',
    });
  });
});

describe('a headless login that stops on the listener’s own answer', () => {
  it('names it as oauthctl’s listener, not the server', () => {
    const error = stoppedOnPage({ url: 'http://127.0.0.1:53124/other?code=c', status: 404, text: 'Not found' }, { redirectUri: 'http://127.0.0.1:53124/callback' });
    expect(error.message).toBe("headless login stopped at http://127.0.0.1:53124/other: oauthctl's redirect listener answered HTTP 404, as it does for any path but the redirect URI's");
    expect(error.message).not.toMatch(/the server answered/);
    expect(error.hint).toBe(
      'the server sent the user agent to http://127.0.0.1:53124/other, not to the redirect URI http://127.0.0.1:53124/callback: check the redirect URIs registered for the client, or give --redirect-uri with the one the server uses',
    );
  });

  it("still says the server answered for the server's own page", () => {
    const error = stoppedOnPage({ url: 'http://127.0.0.1:9000/authorize?x=1', status: 400, text: 'redirect_uri is not registered' }, { redirectUri: 'http://127.0.0.1:53124/callback' });
    expect(error.message).toMatch(/^headless login stopped at http:\/\/127\.0\.0\.1:9000\/authorize: the server answered HTTP 400/);
  });
});
