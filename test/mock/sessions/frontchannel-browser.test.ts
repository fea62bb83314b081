import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { BROWSER_TEST_TIMEOUT, haveChromium, launchChromium, newTab, PAGE_WAIT } from '../../helpers/chromium.js';

vi.setConfig({ testTimeout: BROWSER_TEST_TIMEOUT, hookTimeout: BROWSER_TEST_TIMEOUT });
import { createPkcePair } from '../../../src/oauth/pkce.js';
import { authorizeUrl, pkceRequest, startMock } from '../helpers.js';
import { eventually, startRelyingParty } from './helpers.js';

describe.skipIf(!haveChromium)('front-channel logout in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  it('loads each client in an iframe (iss and sid when asked), frames only those origins, then goes on to the post-logout URI', async () => {
    const web = await startRelyingParty();
    const cli = await startRelyingParty();
    const server = await startMock({
      clients: [
        {
          client_id: 'photo-web',
          client_secret: 'photo-web-secret',
          redirect_uris: [`${web.url}/callback`],
          post_logout_redirect_uris: [`${web.url}/bye`],
          frontchannel_logout_uri: `${web.url}/fc`,
          frontchannel_logout_session_required: true,
        },
        { client_id: 'photo-cli', redirect_uris: [`${cli.url}/callback`], frontchannel_logout_uri: `${cli.url}/fc?tenant=1` },
      ],
    });
    const page = await newTab(browser);
    const csp: string[] = [];
    page.on('response', (r) => r.url().includes('/logout') && csp.push(r.headers()['content-security-policy'] ?? ''));
    await page.goto(authorizeUrl(server, pkceRequest(createPkcePair(), { client_id: 'photo-web', redirect_uri: `${web.url}/callback`, scope: 'openid photo' })));
    await page.getByLabel('Account name').fill('alice');
    await page.getByLabel('Password').fill('wonderland');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(/\/callback\?/);
    await page.goto(authorizeUrl(server, pkceRequest(createPkcePair(), { client_id: 'photo-cli', redirect_uri: `${cli.url}/callback`, scope: 'openid photo' })));
    await page.getByRole('button', { name: 'Allow' }).click();
    await page.waitForURL(/\/callback\?/);
    const [session] = server.sessions();
    expect(session!.clients.sort()).toEqual(['photo-cli', 'photo-web']);

    await page.goto(`${server.authUrl}/logout?client_id=photo-web&post_logout_redirect_uri=${encodeURIComponent(`${web.url}/bye`)}&state=s9`);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(`${web.url}/bye?state=s9`, { timeout: PAGE_WAIT });
    await eventually(() => web.hits.some((h) => h.url.startsWith('/fc')) && cli.hits.some((h) => h.url.startsWith('/fc')));
    const webFrame = new URL(web.hits.find((h) => h.url.startsWith('/fc'))!.url, web.url);
    expect(webFrame.searchParams.get('iss')).toBe(server.issuer);
    expect(webFrame.searchParams.get('sid')).toBe(session!.sid);
    expect(cli.hits.find((h) => h.url.startsWith('/fc'))!.url).toBe('/fc?tenant=1');
    // The iframe loaded before the page went on.
    expect(web.hits.findIndex((h) => h.url.startsWith('/fc'))).toBeLessThan(web.hits.findIndex((h) => h.url.startsWith('/bye')));
    // The front-channel page: its frame-src names exactly the two origins, and it has no script.
    const frontCsp = csp.find((c) => c.includes('frame-src'))!;
    expect(frontCsp).toMatch(new RegExp(`frame-src (${web.url} ${cli.url}|${cli.url} ${web.url});`));
    expect(frontCsp).not.toContain('script-src');
    expect(server.sessions()).toEqual([]);
    await page.close();
  });
});
