import { createInterface } from 'node:readline';
import { UsageError } from '../errors.js';
import { escapeTerminal } from '../output/escape.js';
import type { IO } from '../output/io.js';
import type { FlowConfig } from '../client/flows/flow-config.js';
import type { RedirectCapture, RedirectReceiver } from '../client/listeners/listener.js';
import type { UserAgent } from '../client/flows/user-agent.js';

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
    // Read from now on: a line piped in before the flow asks for it is kept for it.
    const lines = rl[Symbol.asyncIterator]();
    return {
      redirectUri: config.redirectUri,
      pasted: true,
      async waitForRedirect(signal?: AbortSignal): Promise<RedirectCapture> {
        for (;;) {
          const line = await firstNonEmptyLine(lines, signal);
          try {
            return captureFromPastedUrl(line, config.redirectUri);
          } catch (err) {
            // A person at a terminal pastes again; piped input has no second chance to give.
            if (!terminal || !(err instanceof UsageError)) throw err;
            io.stderr.write(`${escapeTerminal(err.message)}${err.hint ? ` (${escapeTerminal(err.hint)})` : ''}\nPaste the address again, then press Enter:\n`);
          }
        }
      },
      async close() {
        rl.close();
      },
    };
  };
}

/** The next non-empty line; lines read before anyone asked are kept by the iterator, none is lost. */
async function firstNonEmptyLine(lines: AsyncIterator<string>, signal?: AbortSignal): Promise<string> {
  const aborted = new Promise<never>((_, reject) => {
    if (signal?.aborted) reject(signal.reason);
    signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
  });
  for (;;) {
    const next = await Promise.race([lines.next(), aborted]);
    if (next.done) {
      throw new UsageError('stdin ended before a redirect URL was pasted', 'paste the URL the browser was redirected to, or pipe it in: echo "$URL" | oauthctl login --manual ...');
    }
    if (next.value.trim() !== '') return next.value;
  }
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
