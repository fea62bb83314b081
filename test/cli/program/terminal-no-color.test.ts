import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMockServer, type MockServer } from '../../../src/mock/index.js';
import { HAS_SCRIPT, runCliOnTerminal } from '../../helpers/terminal.js';

/**
 * NO_COLOR and --no-color on a real terminal (script): the redirect wait's spinner, which redraws its
 * line with CR and CSI 2K, prints its text once instead, so the terminal receives no ESC at all
 * (CONTRACT: "With NO_COLOR, stderr holds no ESC at all"). The run without either shows the test would
 * see the spinner's escapes.
 */
let mock: MockServer;
beforeAll(async () => {
  mock = await createMockServer();
});
afterAll(() => mock.close());

const waitForRedirect = (extra: string[] = []) => [
  'login',
  '--auth-url',
  mock.authUrl,
  '--client-id',
  'photo-cli',
  '--scope',
  'photo',
  '--no-browser',
  '--timeout',
  '1',
  '--redirect-uri',
  'http://127.0.0.1/callback',
  ...extra,
];

describe.skipIf(!HAS_SCRIPT)('colour off on a terminal', () => {
  it('with NO_COLOR, the wait for the redirect puts no ESC on the terminal and says its line once', async () => {
    const { code, shown } = await runCliOnTerminal(waitForRedirect(), { env: { NO_COLOR: '1' } });
    expect(code).toBe(1);
    expect(shown).toContain('timed out after 1 s');
    expect(shown).not.toContain('\x1b');
    expect(shown.match(/Waiting for the redirect to /g)).toHaveLength(1);
  });

  it('with --no-color (NO_COLOR unset), the same', async () => {
    const { code, shown } = await runCliOnTerminal(waitForRedirect(['--no-color']), { env: { NO_COLOR: '' } });
    expect(code).toBe(1);
    expect(shown).toContain('timed out after 1 s');
    expect(shown).not.toContain('\x1b');
    expect(shown.match(/Waiting for the redirect to /g)).toHaveLength(1);
  });

  it('with colour on, the spinner draws in place (what the two runs above would have shown)', async () => {
    const { code, shown } = await runCliOnTerminal(waitForRedirect(), { env: { NO_COLOR: '' } });
    expect(code).toBe(1);
    expect(shown).toContain('\r\x1b[2K');
  });
});
