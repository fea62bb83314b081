import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { endSessionAtServer } from '../../../src/client/flows/end-session.js';
import type { UserAgent } from '../../../src/client/flows/user-agent.js';
import { FlowError } from '../../../src/errors.js';
import type { IO } from '../../../src/output/io.js';
import { createRenderer } from '../../../src/output/render.js';

const io: IO = { stdout: new PassThrough(), stderr: new PassThrough().resume(), stdin: new PassThrough(), env: {} };
const renderer = createRenderer(io, { color: false });

/** A user agent that comes back to the listener itself, with the state the server would echo (or another). */
function comingBack(state: (sent: string) => string, pages: string[]): UserAgent {
  return async (ctx) => {
    const sent = new URL(ctx.authorizationUrl).searchParams;
    expect(sent.get('post_logout_redirect_uri')).toBe(ctx.redirectUri);
    const res = await fetch(`${ctx.redirectUri}?state=${encodeURIComponent(state(sent.get('state')!))}`);
    pages.push(await res.text());
  };
}

const input = (userAgent: UserAgent) => ({
  endSessionEndpoint: 'https://op.example/logout?tenant=1',
  clientId: 'photo-cli',
  idToken: 'header.claims.signature',
  postLogoutRedirectUri: 'http://127.0.0.1/callback',
  userAgent,
  renderer,
  io,
  timeoutMs: 5000,
});

describe('endSessionAtServer (logout --end-session)', () => {
  it('sends id_token_hint, client_id, a fresh state and the listener as post_logout_redirect_uri; the browser page says signed out', async () => {
    const pages: string[] = [];
    let url = '';
    const result = await endSessionAtServer(
      input(async (ctx) => {
        url = ctx.authorizationUrl;
        await comingBack((s) => s, pages)(ctx);
      }),
    );
    const sent = new URL(url);
    expect(sent.origin + sent.pathname).toBe('https://op.example/logout');
    expect(Object.fromEntries(sent.searchParams)).toMatchObject({ tenant: '1', id_token_hint: 'header.claims.signature', client_id: 'photo-cli' });
    expect(sent.searchParams.get('state')).toMatch(/^[A-Za-z0-9_-]{22,}$/);
    expect(result.post_logout_redirect_uri).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/callback$/);
    expect(pages[0]).toContain('Signed out');
  });

  it('refuses a return with another state: the sign-out is not confirmed', async () => {
    const pages: string[] = [];
    await expect(endSessionAtServer(input(comingBack(() => 'forged', pages)))).rejects.toThrow(FlowError);
    expect(pages[0]).toContain('state mismatch');
  });
});
