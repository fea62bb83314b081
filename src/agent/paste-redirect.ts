import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { UsageError } from '../errors.js';
import { withIO, type IO } from '../output/io.js';
import type { FlowConfig } from '../client/flow-config.js';
import type { RedirectCapture, RedirectReceiver } from '../client/listener.js';
import type { UserAgent } from '../client/user-agent.js';

/**
 * `login --manual`: no listener. The user opens the URL in any browser (on another machine, or one
 * whose redirect goes to a custom scheme such as com.example.app:/callback) and pastes the URL the
 * browser was sent to. The flow then checks state and exchanges the code as usual.
 */
export const manualUserAgent: UserAgent = async ({ authorizationUrl, redirectUri, io }) => {
  io.stderr.write(
    `Open this URL in a browser (on any machine):\n\n  ${authorizationUrl}\n\n` +
      `After the login the browser is sent to ${redirectUri}... ; it may show an error page there, which is fine.\n` +
      'Copy the whole address from its address bar and paste it here, then press Enter:\n',
  );
};

/**
 * The redirect source for --manual: one pasted line on stdin. On a terminal the line is read in raw
 * mode (readline does the editing and echo), because the terminal's own line editing keeps at most
 * 4095 characters of a line and a long redirect URL would be cut; Ctrl-C still interrupts.
 */
export function pastedRedirectReceiver(io: IO): (config: FlowConfig) => Promise<RedirectReceiver> {
  return async (config) => {
    const terminal = io.stdin.isTTY === true && io.stderr.isTTY === true;
    const rl = createInterface({ input: io.stdin, crlfDelay: Infinity, ...(terminal ? { output: io.stderr, terminal: true } : { terminal: false }) });
    if (terminal) {
      rl.on('SIGINT', () => {
        rl.close();
        process.kill(process.pid, 'SIGINT');
      });
    }
    return {
      redirectUri: config.redirectUri,
      async waitForRedirect(signal?: AbortSignal): Promise<RedirectCapture> {
        const line = await firstNonEmptyLine(rl, signal);
        return captureFromPastedUrl(line, config.redirectUri);
      },
      async close() {
        rl.close();
      },
    };
  };
}

function firstNonEmptyLine(rl: ReturnType<typeof createInterface>, signal?: AbortSignal): Promise<string> {
  return new Promise((resolve, reject) => {
    const done = () => {
      rl.off('line', onLine);
      rl.off('close', onClose);
      signal?.removeEventListener('abort', onAbort);
    };
    const onLine = (line: string) => {
      if (line.trim() === '') return;
      done();
      resolve(line);
    };
    const onClose = () => {
      done();
      reject(new UsageError('stdin ended before a redirect URL was pasted', 'paste the URL the browser was redirected to, or pipe it in: echo "$URL" | oauthctl login --manual ...'));
    };
    const onAbort = () => {
      done();
      reject(signal?.reason);
    };
    if (signal?.aborted) return onAbort();
    rl.on('line', onLine);
    rl.on('close', onClose);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Reads a pasted redirect URL: its parameters from the query (response_mode=query) or the fragment.
 * It must go to the redirect URI that was sent (same scheme, host and path; a loopback port may
 * differ, RFC 8252 section 7.3), else it is most likely the wrong URL.
 */
export function captureFromPastedUrl(pasted: string, redirectUri: string): RedirectCapture {
  const text = pasted.trim().replace(/^["'<]+|["'>]+$/g, '');
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`the pasted text is not a URL: ${JSON.stringify(text.slice(0, 80))}`, "copy the whole address from the browser's address bar");
  }
  const expected = new URL(redirectUri);
  if (url.protocol !== expected.protocol || url.hostname !== expected.hostname || url.pathname !== expected.pathname) {
    throw new UsageError(`the pasted URL does not go to the redirect URI ${redirectUri}`, 'paste the address the browser was sent to after the login, not the authorization URL');
  }
  const fromQuery = url.search.length > 1;
  const params = new URLSearchParams(fromQuery ? url.search : url.hash.slice(1));
  const record: Record<string, string> = {};
  for (const [k, v] of params) if (!(k in record)) record[k] = v;
  if (Object.keys(record).length === 0) {
    throw new UsageError('the pasted URL carries no parameters (no code, no error)', 'copy the address after the authorization server redirected the browser');
  }
  return { via: fromQuery ? 'query' : 'fragment', params: record, url: url.href, method: 'GET' };
}

/**
 * The command's streams with a stderr that is not a terminal, so that no spinner redraws the line
 * while the user pastes into it; everything still goes to the real stderr, in order.
 */
export function withoutSpinner(io: IO): IO {
  const stderr = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      io.stderr.write(chunk, callback);
    },
  });
  return withIO(io, { stderr });
}
