// B2: on a terminal the spinner's line is cleared before anyone else writes, so the headless agent's
// steps never run together with "Waiting for the redirect".
import { PassThrough, Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHeadlessUserAgent } from '../../src/agent/headless/agent.js';
import { parseFlowOptions } from '../../src/cli/options/flow-options.js';
import { runAuthorizationCodeFlow } from '../../src/client/flows/flow.js';
import { createHttpClient, type HttpClient } from '../../src/client/http/http.js';
import { createMockServer, type MockServer } from '../../src/mock/index.js';
import type { IO, OutStream } from '../../src/output/io.js';
import { createRenderer } from '../../src/output/render.js';
import { startSpinner } from '../../src/output/spinner.js';

const CLEAR = '\r\x1b[2K';

function terminal(): { stream: OutStream; text: () => string } {
  const stream = new PassThrough() as PassThrough & { isTTY: boolean };
  stream.isTTY = true;
  let text = '';
  stream.on('data', (c: Buffer) => (text += c.toString()));
  return { stream, text: () => text };
}

/** What a terminal would show: each line as left by carriage returns and line clears. */
function screenLines(raw: string): string[] {
  return raw.split('\n').map((line) => line.split(CLEAR).pop() ?? '');
}

let mock: MockServer;
let http: HttpClient;
beforeAll(async () => {
  mock = await createMockServer();
  http = createHttpClient({ env: {} });
});
afterAll(async () => {
  await http.close();
  await mock.close();
});

describe('the spinner on a terminal', () => {
  it('clears its line before another write and draws again after it; stop() restores the stream', () => {
    const tty = terminal();
    const original = tty.stream.write;
    const spinner = startSpinner(tty.stream, () => 'Waiting for the redirect');
    tty.stream.write('==> Headless login\n');
    spinner.stop();
    expect(tty.stream.write).toBe(original);
    expect(tty.text()).toContain(`Waiting for the redirect${CLEAR}==> Headless login\n`);
    expect(screenLines(tty.text())).toEqual(['==> Headless login', '']);
  });

  it('on a terminal that cannot move the cursor (TERM=dumb) the text is printed once, no escape sequence', () => {
    const tty = terminal();
    const spinner = startSpinner(tty.stream, () => 'Waiting for the redirect', { TERM: 'dumb' });
    tty.stream.write('==> Headless login\n');
    spinner.stop();
    expect(tty.text()).toBe('Waiting for the redirect\n==> Headless login\n');
  });

  it('with colour off (NO_COLOR, which --no-color sets) the text is printed once, no ESC at all', () => {
    const tty = terminal();
    const spinner = startSpinner(tty.stream, () => 'Waiting for the redirect', { NO_COLOR: '1' });
    tty.stream.write('==> Headless login\n');
    spinner.stop();
    expect(tty.text()).toBe('Waiting for the redirect\n==> Headless login\n');
  });

  it("the headless agent's lines during a real login never share a line with the spinner", async () => {
    const tty = terminal();
    const io: IO = { stdout: new PassThrough(), stderr: tty.stream, stdin: Readable.from([]), env: { FORCE_COLOR: '0' } };
    const parsed = parseFlowOptions({ authUrl: mock.authUrl, clientId: 'photo-cli', scope: ['photo'] });
    const { discover: _discover, ...rest } = parsed;
    const config = { ...rest, authorizationEndpoint: rest.authorizationEndpoint ?? '', tokenEndpoint: rest.tokenEndpoint ?? '' };
    const renderer = createRenderer(io, { verbose: true });
    const result = await runAuthorizationCodeFlow({
      config,
      userAgent: createHeadlessUserAgent({ username: 'alice', password: 'wonderland' }),
      timeoutMs: 20_000,
      http,
      renderer,
      io,
    });
    expect(result.tokenResponse.access_token).toBeDefined();
    // Colour on (the spinner animates only then): its SGR codes left out of what is compared.
    const lines = screenLines(tty.text().replace(/\x1b\[[\d;]*m/g, ''));
    expect(lines).toContain('==> Headless login');
    expect(lines.some((l) => /^headless: GET /.test(l))).toBe(true);
    for (const line of lines) {
      if (line.includes('Waiting for the redirect')) expect(line).toMatch(/^. Waiting for the redirect to \S+ \(\d+:\d\d left, Ctrl-C to stop\)$/);
    }
  });
});
