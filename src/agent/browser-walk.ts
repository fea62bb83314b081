import type { Locator, Page } from 'playwright-core';
import { FlowError } from '../errors.js';
import { redact, redactUrl } from '../output/redact.js';
import { controlSelector, decideRenderedAction, renderedControls, type RenderedControl } from './browser-rendered.js';
import { decidePageAction, type ConsentDecision, type Credentials, type FormSubmission } from './headless/forms.js';
import { StuckOnPageError } from './headless/navigate.js';
import { loginFailed as loginFailedOn, pageSummary, shortLine } from './headless/page-errors.js';
import { parsePage, isSubmitButton, type FormField, type HtmlForm, type HtmlPage } from './headless/page.js';

export interface WalkOptions {
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
export type WalkEnd = { kind: 'ended'; steps: number } | { kind: 'page'; url: string; title: string; text: string; detail: string; steps: number };

/** How long the page must stay unchanged to count as settled after a step. */
const QUIET_MS = 300;
/** How long a page with nothing to do is given to change on its own (a script still drawing it) before the walk ends there. */
const IDLE_WAIT_MS = 2_000;
const POLL_MS = 50;

/**
 * page.goto(start). An app that navigates on its own as soon as it loads (location.assign) cuts the
 * goto short: the walk goes on from where it went. A navigation to about:blank still under way from
 * between two walks cuts it short too: then it is tried again, a few times.
 */
async function openStart(page: Page, start: string): Promise<unknown> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await page.goto(start);
    } catch (err) {
      if (!/interrupted by another navigation/.test(String(err))) throw err;
      await page.waitForLoadState('load').catch(() => undefined);
      if (/^https?:/.test(page.url())) return undefined;
      if (attempt >= 3) throw err;
    }
  }
}

/**
 * Opens `start` and walks the server's pages in the browser, as a person would: an HTML form the
 * headless agent understands is filled and submitted with clicks and typing (decidePageAction on the
 * rendered DOM); any other page is read as rendered (decideRenderedAction: visible fields, the visible
 * control whose name means sign in, allow or deny, in a form or not). After each step it waits for a
 * navigation or for the page to change, until `ended()` or a page with nothing to do.
 */
export async function walk(page: Page, start: string, options: WalkOptions): Promise<WalkEnd> {
  const { timeout, trace } = options;
  const step = (act: () => Promise<unknown>) => actAndSettle(page, options, act);
  page.setDefaultTimeout(timeout);
  await step(() => openStart(page, start));
  let passwordSentAt: string | undefined;
  /** Waits for a script to redraw the page: after a sign-in (once), on a page with nothing to do yet (a few times). */
  let loginWaits = 0;
  let idleWaits = 0;
  for (let n = 0; n < options.maxSteps; n++) {
    if (options.ended()) return { kind: 'ended', steps: n };
    const url = page.url();
    const parsed = await parsePage(await page.content().catch(() => ''), url);
    const action = decidePageAction(parsed, { credentials: options.credentials, consent: options.consent, redirectUri: options.redirectUri });
    trace(`browser: at ${redactUrl(url, options.showSecrets, options.credentials ? [options.credentials.password] : [])} (${parsed.title || 'untitled'})`);
    if (passwordSentAt !== undefined && action.kind === 'login') throw loginFailed(passwordSentAt, url, parsed);
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
        await step(() => submitForm(form, action.form, action.button));
        continue;
      }
      case 'consent': {
        trace(`browser: consent: ${action.decision} with button ${JSON.stringify(action.button.text || action.button.value || action.button.name)}`);
        const form = page.locator('form').nth(action.form.index);
        await step(() => buttonLocator(form, action.form, action.button).click());
        continue;
      }
      case 'auto-submit':
      case 'refresh':
        // The page's own script or refresh moves on; give it the time to.
        await step(async () => undefined);
        continue;
      case 'consent-link':
      case 'stuck':
        break;
    }
    // No HTML form to use: the page as rendered (a script's fields, buttons outside forms, a link to "#").
    const controls = await renderedControls(page);
    const rendered = decideRenderedAction(controls, { consent: options.consent });
    if (rendered.kind === 'login' && passwordSentAt !== undefined) {
      // The app may still be answering the last sign-in; a login shown again after that is a refusal.
      if (loginWaits++ === 0) {
        await step(async () => undefined);
        continue;
      }
      throw loginFailed(passwordSentAt, url, parsed);
    }
    const at = (c: RenderedControl) => page.locator(controlSelector(c));
    switch (rendered.kind) {
      case 'login':
      case 'identifier': {
        const credentials = options.credentials;
        if (!credentials) throw new FlowError(`the server at ${url} asks for a login`, 'give --username and --password');
        if (rendered.username) await at(rendered.username).fill(credentials.username);
        if (rendered.kind === 'login') {
          await at(rendered.password).fill(credentials.password);
          passwordSentAt = url;
          loginWaits = 0;
        }
        idleWaits = 0;
        const filled =
          rendered.kind === 'login'
            ? `${rendered.username ? `${JSON.stringify(rendered.username.name)}=${credentials.username}, ` : ''}${JSON.stringify(rendered.password.name)}=${redact(credentials.password, options.showSecrets)}`
            : `${JSON.stringify(rendered.username.name)}=${credentials.username}`;
        trace(
          `browser: ${rendered.kind === 'login' ? 'login' : 'account-name'} fields filled as rendered (${filled}); ${rendered.submit ? `pressing ${JSON.stringify(rendered.submit.name)}` : 'pressing Enter'}`,
        );
        const last = rendered.kind === 'login' ? rendered.password : rendered.username;
        await step(() => (rendered.submit ? at(rendered.submit).click() : at(last).press('Enter')));
        continue;
      }
      case 'consent': {
        idleWaits = 0;
        for (const box of rendered.checkboxes) {
          trace(`browser: ticking ${JSON.stringify(box.name)}`);
          await at(box).check({ force: true });
        }
        trace(`browser: consent: ${rendered.decision} with ${rendered.control.tag === 'a' ? 'link' : 'control'} ${JSON.stringify(rendered.control.name)}`);
        await step(() => at(rendered.control).click());
        continue;
      }
      case 'none':
        // A script may still be drawing the page: wait for it to change, a few times at most.
        if (parsed.scripts > 0 && idleWaits++ < 3) {
          if (await actAndSettle(page, options, async () => undefined, IDLE_WAIT_MS)) continue;
        }
        if (options.ended()) return { kind: 'ended', steps: n };
        trace(`browser: nothing to do on ${url} (${rendered.detail})`);
        return { kind: 'page', url, title: parsed.title, text: shortLine(parsed.alerts[0] || (await page.innerText('body').catch(() => '')) || parsed.title), detail: rendered.detail, steps: n };
    }
  }
  if (options.ended()) return { kind: 'ended', steps: options.maxSteps };
  throw new FlowError(`browser login gave up after ${options.maxSteps} steps at ${page.url()}`, 'run with --verbose to see every step');
}

/** The login form shown again after the password: the page's own words (page-errors.ts), and where it stopped, for the audit. */
function loginFailed(sentAt: string, url: string, parsed: HtmlPage): StuckOnPageError {
  const failed = loginFailedOn(sentAt, parsed);
  return new StuckOnPageError(failed.message, failed.hint, { url, status: 200, text: pageSummary(parsed, '') });
}

/** A cheap fingerprint of the document: its address and markup (changes when a script redraws it). */
const FINGERPRINT = `(() => { const s = location.href + '\\n' + (document.documentElement ? document.documentElement.outerHTML : ''); let h = 0; for (let i = 0; i < s.length; i++) h = (h * 31 + s.charCodeAt(i)) | 0; return s.length + ':' + h; })()`;

async function fingerprint(page: Page): Promise<string> {
  // Between two documents there is nothing to read: that is a change too.
  return page.evaluate<string>(FINGERPRINT).catch(() => `navigating ${Date.now()}`);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs `act`, then waits as a person would: for a navigation or a change of the page (a script's
 * redraw), then for the page to load and stay unchanged a moment; never longer than the step timeout,
 * and not at all once the walk has ended (the redirect reached, by a link, a form or location.assign).
 * Returns whether the page changed (within `changeWithinMs`, the step timeout unless given).
 */
export async function actAndSettle(page: Page, options: Pick<WalkOptions, 'timeout' | 'ended'>, act: () => Promise<unknown>, changeWithinMs = options.timeout): Promise<boolean> {
  const deadline = Date.now() + options.timeout;
  const changeBy = Date.now() + Math.min(changeWithinMs, options.timeout);
  const before = await fingerprint(page);
  let navigated = false;
  const onNavigated = (frame: unknown) => {
    if (frame === page.mainFrame()) navigated = true;
  };
  page.on('framenavigated', onNavigated);
  try {
    try {
      await act();
    } catch (err) {
      // A navigation to the listener may be cut short when the flow ends; anything else is real.
      if (!/ERR_ABORTED|Target page, context or browser has been closed|ERR_CONNECTION_REFUSED|ERR_BLOCKED_BY_CLIENT/.test(String(err))) {
        throw new FlowError(`browser step failed: ${firstLine(err)}`);
      }
    }
    let changed = false;
    while (!options.ended()) {
      changed = navigated || (await fingerprint(page)) !== before;
      if (changed || Date.now() >= changeBy) break;
      await sleep(POLL_MS);
    }
    if (options.ended()) return true;
    if (!changed) return false;
    await page.waitForLoadState('load', { timeout: Math.max(1, deadline - Date.now()) }).catch(() => undefined);
    let last = await fingerprint(page);
    let quietSince = Date.now();
    while (!options.ended() && Date.now() < deadline && Date.now() - quietSince < QUIET_MS) {
      await sleep(POLL_MS);
      const now = await fingerprint(page);
      if (now !== last) {
        last = now;
        quietSince = Date.now();
      }
    }
    return true;
  } finally {
    page.off('framenavigated', onNavigated);
  }
}

/** The first line of an error's message: Playwright's carry a call log below it. */
export function firstLine(err: unknown): string {
  return (err instanceof Error ? err.message : String(err)).split('\n')[0] ?? '';
}

function fieldLocator(form: Locator, htmlForm: HtmlForm, name: string): Locator {
  const field = htmlForm.fields.find((f) => f.name === name);
  if (field?.id) return form.page().locator(`[id=${JSON.stringify(field.id)}]`);
  return form.locator(`[name=${JSON.stringify(name)}]`).first();
}

function buttonLocator(form: Locator, htmlForm: HtmlForm, button: FormField): Locator {
  if (button.id) return form.page().locator(`[id=${JSON.stringify(button.id)}]`);
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
