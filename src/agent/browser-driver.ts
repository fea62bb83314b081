import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Browser, Locator, Page, Request, Route } from 'playwright-core';
import { FlowError, UsageError } from '../errors.js';
import { redact } from '../output/redact.js';
import { decidePageAction, matchesRedirectUri, type ConsentDecision, type Credentials, type FormSubmission } from './headless/forms.js';
import type { NavigateOptions, NavigationResult } from './headless/navigate.js';
import { loginFailed, pageSummary } from './headless/page-errors.js';
import { redactUrl } from '../output/redact.js';
import { parsePage, isSubmitButton, type FormField, type HtmlForm } from './headless/page.js';
import type { UserAgent, UserAgentContext } from '../client/user-agent.js';

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
    const onAbort = () => void browser.close();
    ctx.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await drive(await browser.newPage(), ctx, options);
    } finally {
      ctx.signal.removeEventListener('abort', onAbort);
      await browser.close();
    }
  };
}

async function drive(page: Page, ctx: UserAgentContext, options: BrowserDriverOptions): Promise<void> {
  let reached = false;
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

interface WalkOptions {
  credentials: Credentials | undefined;
  consent: ConsentDecision;
  redirectUri: string;
  timeout: number;
  maxSteps: number;
  trace: (line: string) => void;
  showSecrets: boolean;
  /** True once the walk has reached where it was going (checked after every step). */
  ended: () => boolean;
}

/** Where a walk stopped: where it was going, or a page with nothing to do on it (an error page). */
type WalkEnd = { kind: 'ended'; steps: number } | { kind: 'page'; url: string; title: string; text: string; detail: string; steps: number };

/**
 * Opens `start` and walks the server's pages in the browser: the headless agent's own decisions
 * (decidePageAction on the rendered DOM), acted out with clicks and typing, until `ended()` or a page
 * with nothing to do. Throws FlowError for a failed login or too many steps.
 */
async function walk(page: Page, start: string, options: WalkOptions): Promise<WalkEnd> {
  const { timeout, trace } = options;
  const nav = (act: () => Promise<unknown>) => navigation(page, timeout, act);
  page.setDefaultTimeout(timeout);
  await nav(() => page.goto(start));
  let passwordSentAt: string | undefined;
  let waitedForScripts = false;
  for (let step = 0; step < options.maxSteps; step++) {
    if (options.ended()) return { kind: 'ended', steps: step };
    const url = page.url();
    const parsed = await parsePage(await page.content(), url);
    const action = decidePageAction(parsed, { credentials: options.credentials, consent: options.consent, redirectUri: options.redirectUri });
    trace(`browser: at ${redactUrl(url, options.showSecrets, options.credentials ? [options.credentials.password] : [])} (${parsed.title || 'untitled'})`);
    if (passwordSentAt !== undefined && action.kind === 'login') throw loginFailed(passwordSentAt, parsed);
    switch (action.kind) {
      case 'login':
      case 'identifier': {
        if (!options.credentials) throw new FlowError(`the server at ${url} asks for a login`, 'give --username and --password');
        const form = page.locator('form').nth(action.form.index);
        for (const field of action.submission.fields) {
          if (field.role !== 'username' && field.role !== 'password') continue;
          await fieldLocator(form, action.form, field.name).fill(field.role === 'password' ? options.credentials.password : options.credentials.username);
        }
        if (action.kind === 'login') passwordSentAt = url;
        trace(`browser: ${action.kind === 'login' ? 'login' : 'account-name'} form chosen (form ${action.form.index + 1}); ${describe(action.submission, options.showSecrets)}`);
        await nav(() => submitForm(form, action.form, action.button));
        break;
      }
      case 'consent': {
        trace(`browser: consent: ${action.decision} with button ${JSON.stringify(action.button.text || action.button.value || action.button.name)}`);
        const form = page.locator('form').nth(action.form.index);
        await nav(() => buttonLocator(form, action.form, action.button).click());
        break;
      }
      case 'consent-link':
        trace(`browser: consent: ${action.decision} with link ${JSON.stringify(action.link.text)}`);
        await nav(() => page.goto(action.link.href));
        break;
      case 'auto-submit':
      case 'refresh':
        // The page's own script or refresh moves on; give it the time to.
        await nav(async () => undefined);
        break;
      case 'stuck':
        if (!waitedForScripts && parsed.scripts > 0) {
          waitedForScripts = true;
          await page.waitForSelector('input[type=password], form button, input[type=submit]', { timeout }).catch(() => undefined);
          break;
        }
        if (options.ended()) return { kind: 'ended', steps: step };
        trace(`browser: nothing to do on ${url} (${action.detail})`);
        return { kind: 'page', url, title: parsed.title, text: pageSummary(parsed, ''), detail: action.detail, steps: step };
    }
  }
  if (options.ended()) return { kind: 'ended', steps: options.maxSteps };
  throw new FlowError(`browser login gave up after ${options.maxSteps} steps at ${page.url()}`, 'run with --verbose to see every step');
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
export async function createBrowserNavigator(options: { browserPath?: string | undefined; env: NodeJS.ProcessEnv; stepTimeoutMs?: number }): Promise<BrowserNavigator> {
  const browser = await launchBrowser(options.browserPath, options.env);
  const context = await browser.newContext();
  return {
    close: () => browser.close(),
    async navigate(authorizationUrl, opts) {
      const page = await context.newPage();
      const trace = opts.trace ?? (() => undefined);
      let stop: Extract<NavigationResult, { kind: 'redirect' }> | undefined;
      let status = 0;
      /** Why a request to `url` would leave the server (and so is not sent), or undefined. */
      const stopReason = (url: URL) => (matchesRedirectUri(url, opts.redirectUri) ? 'redirect-uri' : opts.stopBefore?.(url) ? 'stop-before' : undefined);
      /** Records the request that was not sent, and gives the browser a blank page in its place. */
      const stopAt = (route: Route, request: { url: string; method: string; body: string | null | undefined; from: string; status: number }, stoppedBy: 'redirect-uri' | 'stop-before') => {
        stop = { kind: 'redirect', method: request.method === 'POST' ? 'POST' : 'GET', url: request.url, from: request.from, status: request.status, steps: 0, stoppedBy };
        if (request.body != null) stop.body = request.body;
        trace(`browser: stopped before ${request.method} ${request.url}`);
        return route.fulfill({ status: 200, contentType: 'text/html', body: STOPPED_PAGE });
      };
      // Every page the browser opens is fetched here first, redirects not followed, so that the request
      // that would leave the server (to the redirect URI or another host) is seen, Location fragment and
      // all, and never sent: the browser gets a blank page in its place. The route is the whole
      // context's, so a popup (window.open) and every subresource pass through it too.
      const handler = async (route: Route) => {
        const req = route.request();
        const from = pageOf(req);
        if (from !== page) {
          // A popup or another page the walk never asked for: nothing of it is sent anywhere.
          trace(`browser: blocked ${req.method()} ${req.url()} from a page the login did not open (a popup)`);
          return route.abort('blockedbyclient');
        }
        const reason = stopReason(new URL(req.url()));
        if (stop || !req.isNavigationRequest() || req.frame() !== page.mainFrame()) {
          if (stop || reason) {
            trace(`browser: blocked ${req.method()} ${req.url()}${stop ? ' after the stop' : ` (${reason})`}`);
            return route.abort('blockedbyclient');
          }
          return route.continue();
        }
        const here = reason;
        if (here) return stopAt(route, { url: req.url(), method: req.method(), body: req.postData(), from: page.url(), status }, here);
        let response: Awaited<ReturnType<typeof route.fetch>>;
        try {
          response = await route.fetch({ maxRedirects: 0 });
        } catch (err) {
          trace(`browser: ${req.method()} ${req.url()} failed: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
          return route.abort('failed');
        }
        status = response.status();
        const location = response.headers().location;
        if (status >= 300 && status < 400 && location !== undefined) {
          const target = new URL(location, req.url());
          const there = stopReason(target);
          if (there) {
            // 307 and 308 keep the method and body; the other redirects become a GET.
            const keep = status === 307 || status === 308;
            return stopAt(route, { url: target.href, method: keep ? req.method() : 'GET', body: keep ? req.postData() : undefined, from: req.url(), status }, there);
          }
        }
        return route.fulfill({ response });
      };
      await context.route('**/*', handler);
      try {
        const end = await walk(page, authorizationUrl, {
          credentials: opts.credentials,
          consent: opts.consent,
          redirectUri: opts.redirectUri,
          timeout: options.stepTimeoutMs ?? 10_000,
          maxSteps: opts.maxSteps ?? 25,
          trace,
          showSecrets: opts.showSecrets === true,
          ended: () => stop !== undefined,
        });
        if (stop) return { ...stop, steps: end.steps };
        if (end.kind === 'page') return { kind: 'page', url: end.url, status, title: end.title, text: end.text, steps: end.steps };
        throw new FlowError(`the browser stopped at ${page.url()}`);
      } finally {
        await context.unroute('**/*', handler);
        for (const other of context.pages()) await other.close();
      }
    },
  };
}

/** The page a request comes from; undefined for one no page made (a service worker's). */
function pageOf(request: Request): Page | undefined {
  try {
    return request.frame().page();
  } catch {
    return undefined;
  }
}

/** Runs `act` and waits for the navigation it causes (or the time limit, for pages that change in place). */
async function navigation(page: Page, timeout: number, act: () => Promise<unknown>): Promise<void> {
  const loaded = page.waitForEvent('load', { timeout }).catch(() => undefined);
  try {
    await act();
  } catch (err) {
    // A navigation to the listener may be cut short when the flow ends; anything else is real.
    if (!/ERR_ABORTED|Target page, context or browser has been closed|ERR_CONNECTION_REFUSED/.test(String(err))) {
      throw new FlowError(`browser step failed: ${(err instanceof Error ? err.message : String(err)).split('\n')[0]}`);
    }
  }
  await loaded;
}

function attr(value: string): string {
  return JSON.stringify(value);
}

function fieldLocator(form: Locator, htmlForm: HtmlForm, name: string): Locator {
  const field = htmlForm.fields.find((f) => f.name === name);
  if (field?.id) return form.page().locator(`[id=${attr(field.id)}]`);
  return form.locator(`[name=${attr(name)}]`).first();
}

function buttonLocator(form: Locator, htmlForm: HtmlForm, button: FormField): Locator {
  if (button.id) return form.page().locator(`[id=${attr(button.id)}]`);
  const buttons = htmlForm.fields.filter(isSubmitButton);
  return form.locator('button:not([type]), button[type=submit], input[type=submit], input[type=image]').nth(buttons.indexOf(button));
}

async function submitForm(form: Locator, htmlForm: HtmlForm, button: FormField | undefined): Promise<void> {
  if (button) await buttonLocator(form, htmlForm, button).click();
  else await form.evaluate((f) => (f as unknown as { requestSubmit(): void }).requestSubmit());
}

function describe(submission: FormSubmission, show: boolean): string {
  return submission.fields
    .filter((f) => f.role === 'username' || f.role === 'password')
    .map((f) => `${f.name}=${f.role === 'password' ? redact(f.value, show) : f.value}`)
    .join(', ');
}
