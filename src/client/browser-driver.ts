import { accessSync, constants } from 'node:fs';
import { delimiter, join } from 'node:path';
import type { Browser, Locator, Page } from 'playwright-core';
import { FlowError, UsageError } from '../errors.js';
import { redact } from '../output/redact.js';
import { decidePageAction, matchesRedirectUri, type ConsentDecision, type FormSubmission } from './headless/forms.js';
import { parsePage, isSubmitButton, type FormField, type HtmlForm } from './headless/page.js';
import type { UserAgent, UserAgentContext } from './user-agent.js';

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

/**
 * `login --headless --browser-driver chromium`: the same login as the built-in headless agent, through
 * a real headless Chromium (for login pages that need JavaScript). The page decisions are the headless
 * agent's own (decidePageAction on the rendered DOM); the browser itself follows the final redirect to
 * the loopback listener.
 */
export function createBrowserUserAgent(options: BrowserDriverOptions): UserAgent {
  return async (ctx: UserAgentContext) => {
    const executablePath = findBrowser(options.browserPath, ctx.io.env);
    const { chromium } = await loadPlaywright();
    ctx.renderer.step('Headless login (Chromium)');
    ctx.renderer.trace(`browser: launching ${executablePath}`);
    let browser: Browser;
    try {
      browser = await chromium.launch({ executablePath, headless: true, args: CHROMIUM_ARGS });
    } catch (err) {
      const first = (err instanceof Error ? err.message : String(err)).split('\n')[0];
      throw new UsageError(`cannot start the browser at ${executablePath}: ${first}`, 'check --browser-path');
    }
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
  const timeout = options.stepTimeoutMs ?? 10_000;
  const maxSteps = options.maxSteps ?? 25;
  const consent = options.consent ?? 'approve';
  const trace = (line: string) => ctx.renderer.trace(line);
  const show = ctx.renderer.showSecrets;
  let reached = false;
  page.on('request', (req) => {
    if (req.isNavigationRequest() && matchesRedirectUri(req.url(), ctx.redirectUri)) reached = true;
  });
  page.setDefaultTimeout(timeout);

  await navigation(page, timeout, () => page.goto(ctx.authorizationUrl));
  let passwordSentAt: string | undefined;
  let waitedForScripts = false;
  for (let step = 0; step < maxSteps; step++) {
    if (reached || matchesRedirectUri(page.url(), ctx.redirectUri)) {
      await page.waitForLoadState('load').catch(() => undefined);
      trace(`browser: reached the redirect URI after ${step} step${step === 1 ? '' : 's'}`);
      return;
    }
    const url = page.url();
    const parsed = parsePage(await page.content(), url);
    const action = decidePageAction(parsed, { credentials: { username: options.username, password: options.password }, consent, redirectUri: ctx.redirectUri });
    trace(`browser: at ${url} (${parsed.title || 'untitled'})`);
    if (passwordSentAt !== undefined && action.kind === 'login') {
      throw new FlowError(`login failed at ${passwordSentAt}: the server showed the login form again; check the username and password`, parsed.alerts[0] ? `the page said: ${JSON.stringify(parsed.alerts[0])}` : undefined);
    }
    switch (action.kind) {
      case 'login':
      case 'identifier': {
        const form = page.locator('form').nth(action.form.index);
        for (const field of action.submission.fields) {
          if (field.role !== 'username' && field.role !== 'password') continue;
          await fieldLocator(form, action.form, field.name).fill(field.role === 'password' ? options.password : options.username);
        }
        if (action.kind === 'login') passwordSentAt = url;
        trace(`browser: ${action.kind === 'login' ? 'login' : 'account-name'} form chosen (form ${action.form.index + 1}); ${describe(action.submission, show)}`);
        await navigation(page, timeout, () => submitForm(form, action.form, action.button));
        break;
      }
      case 'consent': {
        trace(`browser: consent: ${action.decision} with button ${JSON.stringify(action.button.text || action.button.value || action.button.name)}`);
        const form = page.locator('form').nth(action.form.index);
        await navigation(page, timeout, () => buttonLocator(form, action.form, action.button).click());
        break;
      }
      case 'consent-link':
        trace(`browser: consent: ${action.decision} with link ${JSON.stringify(action.link.text)}`);
        await navigation(page, timeout, () => page.goto(action.link.href));
        break;
      case 'auto-submit':
      case 'refresh':
        // The page's own script or refresh moves on; give it the time to.
        await navigation(page, timeout, async () => undefined);
        break;
      case 'stuck':
        if (!waitedForScripts && parsed.scripts > 0) {
          waitedForScripts = true;
          await page.waitForSelector('input[type=password], form button, input[type=submit]', { timeout }).catch(() => undefined);
          break;
        }
        throw new FlowError(`browser login stuck at ${url}: ${action.detail}`, 'run with --verbose to see every step');
    }
  }
  if (reached) return;
  throw new FlowError(`browser login gave up after ${maxSteps} steps at ${page.url()}`, 'run with --verbose to see every step');
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
