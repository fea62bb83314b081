import { FlowError } from '../../errors.js';
import { redact, redactUrl } from '../../output/redact.js';
import type { HttpClient, HttpResponse } from '../../client/http/http.js';
import { CookieJar } from './cookies.js';
import { decidePageAction, matchesRedirectUri, type ConsentDecision, type Credentials, type FormSubmission } from './forms.js';
import { loginFailed, pageSummary } from './page-errors.js';
import { parsePage } from './page.js';

export const DEFAULT_MAX_STEPS = 25;

export interface NavigateOptions {
  http: HttpClient;
  redirectUri: string;
  consent: ConsentDecision;
  credentials?: Credentials | undefined;
  /** Without `credentials`: asked only when a page asks for a login (the URL is that page's). */
  askCredentials?: ((url: string) => Promise<Credentials>) | undefined;
  jar?: CookieJar | undefined;
  maxSteps?: number | undefined;
  signal?: AbortSignal | undefined;
  /** One line per step (method, URL, status, form chosen, fields filled), secrets already redacted. */
  trace?: ((line: string) => void) | undefined;
  showSecrets?: boolean | undefined;
  /**
   * Stop, without sending anything, before a request to a URL this returns true for (the audit stops
   * at the first hop off the authorization server so that it never sends traffic to foreign hosts).
   */
  stopBefore?: ((url: URL) => boolean) | undefined;
}

/** Where the navigation ended. */
export type NavigationResult =
  /** The next request would go to the redirect URI (or a URL `stopBefore` chose): not sent. */
  | { kind: 'redirect'; method: 'GET' | 'POST'; url: string; body?: string; from: string; status: number; steps: number; stoppedBy: 'redirect-uri' | 'stop-before' }
  /** A page the agent has nothing to do on, for example the server's error page. */
  | { kind: 'page'; url: string; status: number; title: string; text: string; steps: number };

/**
 * The agent stopped on a page it could not get past (the login form shown again, a page that needs
 * JavaScript, a question it has no answer to): a FlowError for a login, and for the audit a page where
 * the server did not redirect.
 */
export class StuckOnPageError extends FlowError {
  constructor(
    message: string,
    hint: string | undefined,
    readonly page: { url: string; status: number; text: string },
  ) {
    super(message, hint);
  }
}

interface PendingRequest {
  method: 'GET' | 'POST';
  url: string;
  body?: string | undefined;
  from: string;
  status: number;
}

/**
 * Walks the authorization server's pages like a browser without scripts: cookies, redirects (302/303
 * become GET, 307/308 keep the method), login and consent forms. It stops BEFORE the request that would
 * reach the redirect URI and returns it, so the caller decides whether to deliver it.
 * Throws FlowError for a failed login, a page that needs JavaScript, or too many steps.
 */
export async function navigate(authorizationUrl: string, options: NavigateOptions): Promise<NavigationResult> {
  const jar = options.jar ?? new CookieJar();
  const maxSteps = options.maxSteps ?? DEFAULT_MAX_STEPS;
  const trace = options.trace ?? (() => undefined);
  const show = options.showSecrets === true;
  // A GET login form sends the password in the URL: the trace shows URLs with it redacted.
  let credentials = options.credentials;
  const shown = (url: string) => redactUrl(url, show, credentials ? [credentials.password] : []);
  let next: PendingRequest = { method: 'GET', url: authorizationUrl, from: authorizationUrl, status: 0 };
  let steps = 0;
  let passwordSentAt: string | undefined;

  for (;;) {
    const target = new URL(next.url);
    if (matchesRedirectUri(target, options.redirectUri)) return { kind: 'redirect', ...withBody(next), steps, stoppedBy: 'redirect-uri' };
    if (options.stopBefore?.(target)) return { kind: 'redirect', ...withBody(next), steps, stoppedBy: 'stop-before' };
    if (steps >= maxSteps) {
      throw new FlowError(`headless login gave up after ${maxSteps} steps at ${next.from}`, 'the pages keep leading elsewhere; run with --verbose to see them, or raise the step limit');
    }
    steps++;
    const res = await send(options.http, next, jar, options.signal);
    const location = res.headers.location;
    if (res.status >= 300 && res.status < 400 && location) {
      let to: string;
      try {
        to = new URL(location, next.url).toString();
      } catch {
        throw new FlowError(`the server at ${next.url} redirected to an invalid URL ${JSON.stringify(location)}`);
      }
      trace(`headless: ${next.method} ${shown(next.url)} -> ${res.status}, Location: ${shown(to)}`);
      const keep = res.status === 307 || res.status === 308;
      next = keep ? { method: next.method, url: to, body: next.body, from: next.url, status: res.status } : { method: 'GET', url: to, from: next.url, status: res.status };
      continue;
    }
    trace(`headless: ${next.method} ${shown(next.url)} -> ${res.status}${contentTypeNote(res)}`);

    const html = /html|xml/i.test(res.headers['content-type'] ?? '') || /^\s*</.test(res.body);
    const page = html ? await parsePage(res.body, next.url) : undefined;
    const decide = () => (page ? decidePageAction(page, { credentials, consent: options.consent, redirectUri: options.redirectUri }) : undefined);
    let action = decide();
    if ((action?.kind === 'login' || action?.kind === 'identifier') && credentials === undefined && options.askCredentials) {
      credentials = await options.askCredentials(next.url);
      action = decide();
    }

    if (passwordSentAt !== undefined && page && action?.kind === 'login') {
      const failed = loginFailed(passwordSentAt, page);
      throw new StuckOnPageError(failed.message, failed.hint, { url: next.url, status: res.status, text: pageSummary(page, res.body) });
    }
    if (!page || !action || action.kind === 'stuck') {
      const here = { url: next.url, status: res.status, text: pageSummary(page, res.body) };
      if (action?.kind === 'stuck' && action.reason === 'needs-javascript' && res.status < 400) {
        throw new StuckOnPageError(`the page at ${next.url} needs JavaScript: ${action.detail}`, 'use --browser-driver chromium to log in through a real browser', here);
      }
      if (action?.kind === 'stuck' && action.reason === 'no-decision') {
        throw new StuckOnPageError(`headless login stuck at ${next.url}: ${action.detail}`, 'use --browser-driver chromium, or --consent approve|deny', here);
      }
      trace(`headless: nothing to do on ${shown(next.url)}${action?.kind === 'stuck' ? ` (${action.detail})` : ''}`);
      return { kind: 'page', ...here, title: page?.title ?? '', steps };
    }

    switch (action.kind) {
      case 'login':
        if (!credentials) throw new FlowError(`the server at ${next.url} asks for a login`, 'give --username and --password');
        if (!action.hasUsername) trace('headless: the login form has no account-name field; filling the password only');
        passwordSentAt = next.url;
        trace(`headless: login form chosen (${describeForm(page, action.form.index)}); ${describeFields(action.submission, show)}`);
        next = submit(action.submission, next.url, res.status);
        break;
      case 'identifier':
        if (!credentials) throw new FlowError(`the server at ${next.url} asks for an account name`, 'give --username and --password');
        trace(`headless: account-name form chosen (${describeForm(page, action.form.index)}); ${describeFields(action.submission, show)}`);
        next = submit(action.submission, next.url, res.status);
        break;
      case 'consent':
        trace(
          `headless: consent: ${action.decision} with button ${JSON.stringify(action.button.text || action.button.value || action.button.name)} (${describeForm(page, action.form.index)}); ${describeFields(action.submission, show)}`,
        );
        next = submit(action.submission, next.url, res.status);
        break;
      case 'consent-link':
        trace(`headless: consent: ${action.decision} with link ${JSON.stringify(action.link.text)}`);
        next = { method: 'GET', url: action.link.href, from: next.url, status: res.status };
        break;
      case 'auto-submit':
        trace(`headless: submitting the form a script would submit (${describeForm(page, action.form.index)}); ${describeFields(action.submission, show)}`);
        next = submit(action.submission, next.url, res.status);
        break;
      case 'refresh':
        trace(`headless: meta refresh to ${shown(action.url)}`);
        next = { method: 'GET', url: action.url, from: next.url, status: res.status };
        break;
    }
  }
}

function withBody(req: PendingRequest): { method: 'GET' | 'POST'; url: string; body?: string; from: string; status: number } {
  const out: { method: 'GET' | 'POST'; url: string; body?: string; from: string; status: number } = { method: req.method, url: req.url, from: req.from, status: req.status };
  if (req.body !== undefined) out.body = req.body;
  return out;
}

function submit(submission: FormSubmission, from: string, status: number): PendingRequest {
  return { method: submission.method, url: submission.url, body: submission.body, from, status };
}

async function send(http: HttpClient, req: PendingRequest, jar: CookieJar, signal: AbortSignal | undefined): Promise<HttpResponse> {
  const headers: Record<string, string> = { accept: 'text/html,application/xhtml+xml,*/*;q=0.8', 'user-agent': 'oauthctl-headless' };
  const cookie = await jar.cookieHeader(req.url);
  if (cookie) headers.cookie = cookie;
  if (req.method === 'POST') {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    // Browsers send Origin on form posts; servers with CSRF checks look at it.
    headers.origin = new URL(req.from).origin;
  }
  const res = await http.request(req.url, { method: req.method, headers, ...(req.body !== undefined ? { body: req.body } : {}), ...(signal ? { signal } : {}) });
  const setCookie = res.headers['set-cookie'];
  if (setCookie) await jar.setCookies(setCookie.split('\n'), req.url);
  return res;
}

function contentTypeNote(res: HttpResponse): string {
  const type = res.headers['content-type']?.split(';')[0];
  return type ? ` (${type})` : '';
}

function describeForm(page: { forms: readonly unknown[] } | undefined, index: number): string {
  return `form ${index + 1} of ${page?.forms.length ?? 1}`;
}

function describeFields(submission: FormSubmission, show: boolean): string {
  const shown = submission.fields.map((f) => {
    if (f.role === 'password') return `${f.name}=${redact(f.value, show)} (password)`;
    if (f.role === 'username') return `${f.name}=${f.value} (account name)`;
    if (f.role === 'hidden') return `${f.name} (hidden, kept)`;
    return `${f.name}=${f.value}`;
  });
  return `${submission.method} ${submission.url.split('?')[0]}${shown.length ? `: ${shown.join(', ')}` : ''}`;
}
