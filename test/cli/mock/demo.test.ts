import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { BROWSER_TEST_TIMEOUT } from '../../helpers/chromium.js';
import { ROOT, runCli } from '../../helpers/cli.js';

describe('oauthctl demo', () => {
  it('runs login --pkce against the built-in mock and prints the protected API response', async () => {
    const result = await runCli(['demo', '--headless', '--timeout', '20']);
    expect(result.code, result.stderr).toBe(0);
    const photos = JSON.parse(result.stdout) as { owner: string; photos: unknown[] };
    expect(photos.owner).toBe('alice');
    expect(photos.photos.length).toBeGreaterThan(0);
    expect(result.stderr).toMatch(/code_challenge_method=S256/);
    expect(result.stderr).toMatch(/state matches/);
    expect(result.stderr).toMatch(/HTTP 200/);
    // Secrets stay redacted in the narration.
    expect(result.stderr).toMatch(/code_verifier .*\[redacted 64 chars\]/);
    expect(result.stderr).not.toMatch(/access_token: ey/);
  });

  it('uses the built-in user agent by itself when no browser can be shown', async () => {
    const result = await runCli(['demo', '--timeout', '20']);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stderr).toMatch(/no browser to open here/);
  });

  it('with --json prints the token response as the one document on stdout', async () => {
    const result = await runCli(['demo', '--headless', '--json', '--timeout', '20']);
    expect(result.code, result.stderr).toBe(0);
    const tokens = JSON.parse(result.stdout) as Record<string, unknown>;
    expect(tokens).toMatchObject({ token_type: 'Bearer', access_token: expect.any(String), refresh_token: expect.any(String) });
  });

  it('with --no-browser prints the URL and gives up after --timeout (exit 1)', async () => {
    const result = await runCli(['demo', '--no-browser', '--timeout', '1']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/\/authorize\?response_type=code/);
    expect(result.stderr).toMatch(/oauthctl: error: .*(timed out|timeout|no redirect)/i);
  });
});

describe('oauthctl demo in a real browser', () => {
  const chromium = '/usr/bin/chromium';
  it.skipIf(!existsSync(chromium))(
    'signs in and consents through Chromium opened from BROWSER',
    async () => {
      const browser = `${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'test', 'helpers', 'chromium-user.mjs'))}`;
      const result = await runCli(['demo', '--timeout', '180'], { env: { BROWSER: browser } });
      expect(result.code, result.stderr).toBe(0);
      expect(result.stderr).toMatch(/log in as alice \/ wonderland in the browser/);
      expect((JSON.parse(result.stdout) as { owner: string }).owner).toBe('alice');
    },
    BROWSER_TEST_TIMEOUT,
  );
});
