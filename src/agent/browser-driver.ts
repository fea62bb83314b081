import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { APIResponse, Browser, Page, Request, Route } from 'playwright-core';
import { CliError, FlowError, UsageError } from '../errors.js';
import { firstLine, walk } from './browser-walk.js';
import { matchesRedirectUri, type ConsentDecision } from './headless/forms.js';
import type { NavigateOptions, NavigationResult } from './headless/navigate.js';
import type { UserAgent, UserAgentContext } from '../client/flows/user-agent.js';
import type { HarRecorder } from '../output/har.js';
import { MAX_RECORDED, recordPage, type PageRecording } from './browser-trace.js';

export const DEFAULT_BROWSER_PATH = '/usr/bin/chromium';
const BROWSER_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];
const CHROMIUM_ARGS = ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

export interface BrowserDriverOptions {
  username: string;
  password: string;
  consent?: ConsentDecision;
  /** The browser's executable; default /usr/bin/chromium, else `chromium` on PATH. */
  browserPath?: string | undefined;
  maxSteps?: number;
  /** How long to wait for each page to settle. */
  stepTimeoutMs?: number;
}

/** Finds the browser to drive: the given path, /usr/bin/chromium, or a Chromium on PATH. */
export function findBrowser(browserPath: string | undefined, env: NodeJS.ProcessEnv): string {
  if (browserPath !== undefined) {
    if (!isExecutable(browserPath)) throw new UsageError(`--browser-path ${JSON.stringify(browserPath)} is not an executable file`, 'give the path of a Chromium or Chrome binary');
    return browserPath;
  }
  if (isExecutable(DEFAULT_BROWSER_PATH)) return DEFAULT_BROWSER_PATH;
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of BROWSER_NAMES) {
      const candidate = join(dir, name);
      if (isExecutable(candidate)) return candidate;
    }
  }
  throw new UsageError(`no Chromium found at ${DEFAULT_BROWSER_PATH} or on PATH`, 'install it (e.g. apt-get install chromium) or give --browser-path');
}

function isExecutable(path: string): boolean {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

async function loadPlaywright(): Promise<typeof import('playwright-core')> {
  try {
    return await import('playwright-core');
  } catch {
    throw new UsageError('--browser-driver needs the playwright-core package, which is not installed', 'npm install playwright-core (an optional dependency), or log in without --browser-driver');
  }
}

/** Fails with one line (exit 2) when playwright-core or the browser is missing; returns the browser path. */
export async function checkBrowserDriver(browserPath: string | undefined, env: NodeJS.ProcessEnv): Promise<string> {
  const path = findBrowser(browserPath, env);
  await loadPlaywright();
  return path;
}

/** A headless Chromium (the one findBrowser finds); a browser that will not start is one line, exit 2. */
async function launchBrowser(browserPath: string | undefined, env: NodeJS.ProcessEnv, trace?: (line: string) => void): Promise<Browser> {
  const executablePath = findBrowser(browserPath, env);
  const { chromium } = await loadPlaywright();
  trace?.(`browser: launching ${executablePath}`);
  try {
    return await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
  } catch (err) {
    const first = (err instanceof Error ? err.message : String(err)).split('\n')[0];
    throw new UsageError(`cannot start the browser at ${executablePath}: ${first}`, 'check --browser-path');
  }
}

/**
 * `login --headless --browser-driver chromium`: the same login as the built-in headless agent, through
 * a real headless Chromium (for login pages that need JavaScript). The page decisions are the headless
 * agent's own (decidePageAction on the rendered DOM); the browser itself follows the final redirect to
 * the loopback listener.
 */
export function createBrowserUserAgent(options: BrowserDriverOptions): UserAgent {
  return async (ctx: UserAgentContext) => {
    ctx.renderer.step('Headless login (Chromium)');
    const browser = await launchBrowser(options.browserPath, ctx.io.env, (line) => ctx.renderer.trace(line));
    let recording: PageRecording | undefined;
    let driven = false;
    let closed: Promise<void> | undefined;
    // With --trace the browser's last requests are recorded before it closes, and the file waits for
    // that: the flow goes on (and may end) as soon as the redirect is in, without waiting for the browser.
    const close = (redirected: boolean) => {
      if (closed === undefined) {
        closed = (recording?.settled(redirected) ?? Promise.resolve()).then(() => browser.close());
        ctx.renderer.har?.later(closed);
      }
      return closed;
    };
    const onAbort = () => void close(true);
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      const page = await browser.newPage();
      if (ctx.renderer.har) {
        ctx.renderer.har.addSecret(options.password);
        recording = recordPage(page, ctx.renderer.har, { redirectUri: ctx.redirectUri, warn: (line) => ctx.renderer.warn(line) });
      }
      await drive(page, ctx, options);
      driven = true;
    } catch (err) {
      throw oneLine(err);
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      await close(driven);
    }
  };
}

async function drive(page: Page, ctx: UserAgentContext, options: BrowserDriverOptions): Promise<void> {
  let reached = false;
  // Any navigation to the listener ends the walk: a redirect, a form post, a link or a script's location.assign.
  page.on('request', (req) => {
    if (req.isNavigationRequest() && matchesRedirectUri(req.url(), ctx.redirectUri)) reached = true;
  });
  const end = await walk(page, ctx.authorizationUrl, {
    credentials: { username: options.username, password: options.password },
    consent: options.consent ?? 'approve',
    redirectUri: ctx.redirectUri,
    timeout: options.stepTimeoutMs ?? 10_000,
    maxSteps: options.maxSteps ?? 25,
    trace: (line) => ctx.renderer.trace(line),
    showSecrets: ctx.renderer.showSecrets,
    ended: () => reached || matchesRedirectUri(page.url(), ctx.redirectUri),
  });
  if (end.kind === 'page') throw new FlowError(`browser login stuck at ${end.url}: ${end.detail}`, 'run with --verbose to see every step');
  await page.waitForLoadState('load').catch(() => undefined);
  ctx.renderer.trace(`browser: reached the redirect URI after ${end.steps} step${end.steps === 1 ? '' : 's'}`);
}

// The icon link keeps Chromium from asking the redirect URI's host for /favicon.ico, a request no route sees.
const STOPPED_PAGE = '<!doctype html><title>oauthctl</title><link rel="icon" href="data:,"><p>oauthctl stopped here, before leaving the authorization server.</p>';

/** What the browser navigator needs of `navigate`'s options (the browser has its own HTTP and cookies). */
export type BrowserNavigateOptions = Omit<NavigateOptions, 'http' | 'jar' | 'signal'>;

/** `audit --browser-driver chromium`: the audit's navigation through one headless Chromium, cookies kept across probes. */
export interface BrowserNavigator {
  navigate(authorizationUrl: string, options: BrowserNavigateOptions): Promise<NavigationResult>;
  close(): Promise<void>;
}

/**
 * The built-in agent's `navigate` done in a real browser, for servers whose pages need JavaScript: the
 * same result, and the same promise that nothing is sent to the redirect URI or to another host (the
 * browser gets a blank page instead; what its request would have carried is the result).
 */
export async function createBrowserNavigator(options: {
  browserPath?: string | undefined;
  env: NodeJS.ProcessEnv;
  stepTimeoutMs?: number;
  /** --trace: the page's requests are recorded as the user agent's (recordPage); `warn` says when there are too many. */
  har?: HarRecorder | undefined;
  warn?: (line: string) => void;
}): Promise<BrowserNavigator> {
  const browser = await launchBrowser(options.browserPath, options.env);
  const context = await browser.newContext();
  let current: NavigatorWalk | undefined;
  // One page for every walk: closing a page while its last navigation is being answered can hang Chromium.
  let page: Page | undefined;
  let recording: PageRecording | undefined;
  /** What the route did with each navigation it answered (recordPage's answerOf). */
  const answers = new WeakMap<Request, APIResponse | string>();
  // One route for the context's whole life, answering each request once: removing a route while its
  // requests are in flight makes Playwright answer them itself, and our answer then fails with "Route is
  // already handled!". Between walks every request is refused.
  await context.route('**/*', (route) => answerRoute(route, current, options.har ? answers : undefined));
  let closed: Promise<void> | undefined;
  return {
    close() {
      current = undefined;
      if (closed === undefined) {
        closed = (async () => {
          await recording?.settled(false);
          await context.unrouteAll({ behavior: 'ignoreErrors' }).catch(() => undefined);
          await browser.close();
        })();
        options.har?.later(closed);
      }
      return closed;
    },
    async navigate(authorizationUrl, opts) {
      if (page === undefined) {
        page = await context.newPage();
        // The audit's walks are many: more of their requests are kept than of one login's.
        const answerOf = (req: Request) => answers.get(req);
        if (options.har) recording = recordPage(page, options.har, { warn: options.warn ?? (() => undefined), maxRecorded: 20 * MAX_RECORDED, answerOf });
      }
      if (opts.credentials) options.har?.addSecret(opts.credentials.password);
      // A late navigation of the last walk (an app's location.assign that fired after it ended) must not
      // land in this one: the page leaves for about:blank first, while the route still refuses everything.
      current = undefined;
      for (let attempt = 0; attempt < 2; attempt++) {
        if (
          await page.goto('about:blank').then(
            () => true,
            () => false,
          )
        )
          break;
      }
      const state: NavigatorWalk = { page, redirectUri: opts.redirectUri, stopBefore: opts.stopBefore, trace: opts.trace ?? (() => undefined), status: 0 };
      current = state;
      try {
        const end = await walk(page, authorizationUrl, {
          credentials: opts.credentials,
          consent: opts.consent,
          redirectUri: opts.redirectUri,
          timeout: options.stepTimeoutMs ?? 10_000,
          maxSteps: opts.maxSteps ?? 25,
          trace: state.trace,
          showSecrets: opts.showSecrets === true,
          ended: () => state.stop !== undefined,
        });
        if (state.stop) return { ...state.stop, steps: end.steps };
        if (end.kind === 'page') return { kind: 'page', url: end.url, status: state.status, title: end.title, text: end.text, steps: end.steps };
        throw new FlowError(`the browser stopped at ${page.url()}`);
      } catch (err) {
        throw oneLine(err);
      } finally {
        current = undefined;
        for (const other of context.pages()) if (other !== page) await other.close().catch(() => undefined);
      }
    },
  };
}

/** A failure of the browser as one line: ours as they are, Playwright's (with their call logs) cut to the first line. */
function oneLine(err: unknown): unknown {
  if (err instanceof CliError) return err;
  return new FlowError(`the browser failed: ${firstLine(err)}`, 'run with --verbose to see every step');
}

/** What the context's route needs of the walk under way. */
interface NavigatorWalk {
  page: Page;
  redirectUri: string;
  stopBefore: ((url: URL) => boolean) | undefined;
  trace: (line: string) => void;
  /** The status of the last page the main frame got. */
  status: number;
  /** The request that was not sent (to the redirect URI or another host): the walk's result. */
  stop?: Extract<NavigationResult, { kind: 'redirect' }>;
}

/**
 * Every page the browser opens is fetched here first, redirects not followed, so that the request that
 * would leave the server (to the redirect URI or another host) is seen, Location fragment and all, and
 * never sent: the browser gets a blank page in its place. The route is the whole context's, so a popup
 * (window.open) and every subresource pass through it too. Each request is answered once; an answer
 * that fails (the page went away meanwhile) is a line of the trace, never an error.
 */
async function answerRoute(route: Route, w: NavigatorWalk | undefined, answers: WeakMap<Request, APIResponse | string> | undefined): Promise<void> {
  const req = route.request();
  const trace = w?.trace ?? (() => undefined);
  const settle = async (how: 'abort' | 'continue' | 'fulfill', answer: () => Promise<void>) => {
    try {
      await answer();
    } catch (err) {
      trace(`browser: could not ${how} ${req.method()} ${req.url()}: ${firstLine(err)}`);
    }
  };
  if (!w || pageOf(req) !== w.page) {
    // A popup, a page the walk never asked for, or a request after the walk: nothing of it is sent anywhere.
    trace(`browser: blocked ${req.method()} ${req.url()} from a page the login did not open (a popup)`);
    return settle('abort', () => route.abort('blockedbyclient'));
  }
  /** Why a request to `url` would leave the server (and so is not sent), or undefined. */
  const stopReason = (url: URL) => (matchesRedirectUri(url, w.redirectUri) ? 'redirect-uri' : w.stopBefore?.(url) ? 'stop-before' : undefined);
  /** Records the request that was not sent, and gives the browser a blank page in its place. */
  const stopAt = (request: { url: string; method: string; body: string | null | undefined; from: string; status: number }, stoppedBy: 'redirect-uri' | 'stop-before') => {
    w.stop = { kind: 'redirect', method: request.method === 'POST' ? 'POST' : 'GET', url: request.url, from: request.from, status: request.status, steps: 0, stoppedBy };
    // A request the route did not fetch (to the redirect URI itself) is not sent; one whose answer
    // redirected there was, and its answer is already kept.
    if (!answers?.has(req)) answers?.set(req, `not sent: oauthctl stopped the browser before ${request.method} ${request.url}`);
    if (request.body != null) w.stop.body = request.body;
    trace(`browser: stopped before ${request.method} ${request.url}`);
    return settle('fulfill', () => route.fulfill({ status: 200, contentType: 'text/html', body: STOPPED_PAGE }));
  };
  const reason = stopReason(new URL(req.url()));
  if (w.stop || !req.isNavigationRequest() || req.frame() !== w.page.mainFrame()) {
    if (w.stop || reason) {
      trace(`browser: blocked ${req.method()} ${req.url()}${w.stop ? ' after the stop' : ` (${reason})`}`);
      return settle('abort', () => route.abort('blockedbyclient'));
    }
    return settle('continue', () => route.continue());
  }
  if (reason) return stopAt({ url: req.url(), method: req.method(), body: req.postData(), from: w.page.url(), status: w.status }, reason);
  let response: Awaited<ReturnType<typeof route.fetch>>;
  try {
    response = await route.fetch({ maxRedirects: 0 });
  } catch (err) {
    trace(`browser: ${req.method()} ${req.url()} failed: ${firstLine(err)}`);
    return settle('abort', () => route.abort('failed'));
  }
  answers?.set(req, response);
  w.status = response.status();
  const location = response.headers().location;
  if (w.status >= 300 && w.status < 400 && location !== undefined) {
    const target = new URL(location, req.url());
    const there = stopReason(target);
    if (there) {
      // 307 and 308 keep the method and body; the other redirects become a GET.
      const keep = w.status === 307 || w.status === 308;
      return stopAt({ url: target.href, method: keep ? req.method() : 'GET', body: keep ? req.postData() : undefined, from: req.url(), status: w.status }, there);
    }
  }
  return settle('fulfill', () => route.fulfill({ response }));
}

/** The page a request comes from; undefined for one no page made (a service worker's). */
function pageOf(request: Request): Page | undefined {
  try {
    return request.frame().page();
  } catch {
    return undefined;
  }
}
