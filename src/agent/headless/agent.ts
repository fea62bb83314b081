import { createHttpClient, type HttpClient, type HttpClientOptions } from '../../client/http/http.js';
import type { UserAgent, UserAgentContext } from '../../client/flows/user-agent.js';
import { FRAGMENT_HEADER } from '../../client/listeners/listener.js';
import { CookieJar } from './cookies.js';
import type { ConsentDecision, Credentials } from './forms.js';
import { stoppedOnPage } from './page-errors.js';
import { DEFAULT_MAX_STEPS, navigate, type NavigationResult } from './navigate.js';

export interface HeadlessUserAgentOptions {
  /** Without them, a login form asks for what is missing (askCredentials) or stops the login with a line asking for --username and --password. */
  username?: string | undefined;
  password?: string | undefined;
  /** What is missing of the two, asked only when a page asks for a login (both at once, on a terminal). */
  askCredentials?: ((url: string, given: { username?: string | undefined; password?: string | undefined }) => Promise<Credentials>) | undefined;
  consent?: ConsentDecision;
  /** The HTTP client; by default one is made per login (with `httpOptions`) and closed after. */
  http?: HttpClient;
  httpOptions?: Omit<HttpClientOptions, 'renderer' | 'env'>;
  maxSteps?: number;
}

/**
 * The built-in user agent for `login --headless`: logs in and answers the consent page through plain
 * HTTP and HTML forms, then delivers the redirect to the loopback listener itself, so the client side
 * of the flow runs exactly as with a browser.
 */
export function createHeadlessUserAgent(options: HeadlessUserAgentOptions): UserAgent {
  return async (ctx: UserAgentContext) => {
    const renderer = ctx.renderer;
    // The command has already warned about --insecure with its own client: no second warning.
    // Read at each request: a password asked for later joins the values redacted from the trace.
    const secrets = options.password !== undefined ? [options.password] : [];
    const http = options.http ?? createHttpClient({ ...options.httpOptions, renderer: { ...renderer, warn: () => undefined }, env: ctx.io.env, actor: 'user-agent', secrets });
    const given = { username: options.username, password: options.password };
    const ask = options.askCredentials;
    const askCredentials =
      ask &&
      (async (url: string): Promise<Credentials> => {
        const credentials = await ask(url, given);
        secrets.push(credentials.password);
        renderer.har?.addSecret(credentials.password);
        return credentials;
      });
    try {
      ctx.renderer.step('Headless login');
      const result = await navigate(ctx.authorizationUrl, {
        http,
        redirectUri: ctx.redirectUri,
        consent: options.consent ?? 'approve',
        credentials: options.username !== undefined && options.password !== undefined ? { username: options.username, password: options.password } : undefined,
        askCredentials,
        jar: new CookieJar(),
        maxSteps: options.maxSteps ?? DEFAULT_MAX_STEPS,
        signal: ctx.signal,
        trace: (line) => renderer.trace(line),
        showSecrets: ctx.renderer.showSecrets,
      });
      await deliverRedirect(http, result, ctx);
    } finally {
      if (!options.http) await http.close();
    }
  };
}

/** Sends the redirect to the loopback listener, as a browser would (GET, or POST for form_post). */
async function deliverRedirect(http: HttpClient, result: NavigationResult, ctx: UserAgentContext): Promise<void> {
  if (result.kind === 'page') throw stoppedOnPage(result, { redirectUri: ctx.redirectUri, clientId: new URL(ctx.authorizationUrl).searchParams.get('client_id') ?? undefined });
  ctx.renderer.info(`redirected to the redirect URI after ${result.steps} step${result.steps === 1 ? '' : 's'}`);
  const headers: Record<string, string> = { accept: 'text/html' };
  const hash = result.method === 'GET' ? new URL(result.url).hash.slice(1) : '';
  if (hash !== '') {
    // Parameters in the fragment (response_mode fragment.jwt): posted back as the listener's page does in a browser.
    const url = new URL(result.url);
    url.hash = '';
    await http.request(url.href, { method: 'POST', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded', [FRAGMENT_HEADER]: '1' }, body: hash, signal: ctx.signal });
    return;
  }
  if (result.method === 'POST') headers['content-type'] = 'application/x-www-form-urlencoded';
  await http.request(result.url, { method: result.method, headers, ...(result.body !== undefined ? { body: result.body } : {}), signal: ctx.signal });
}
