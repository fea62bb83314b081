import { Option, type Command } from 'commander';
import { UsageError } from '../../errors.js';
import { httpTimeoutMs } from './http-timeout.js';
import type { UserAgent } from '../../client/flows/user-agent.js';
import type { ConsentDecision } from '../../agent/headless/forms.js';

export const USERNAME_ENV = 'OAUTHCTL_USERNAME';
export const PASSWORD_ENV = 'OAUTHCTL_PASSWORD';

/** `login --headless` and `audit`: the built-in user agent's options as commander gives them. */
export interface HeadlessOptionsInput {
  headless?: boolean | undefined;
  username?: string | undefined;
  password?: string | undefined;
  consent?: string | undefined;
  browserDriver?: string | undefined;
  browserPath?: string | undefined;
  insecure?: boolean | undefined;
  /** --http-timeout SECONDS: the agent's own requests keep the same deadline. */
  httpTimeout?: number | undefined;
}

export interface HeadlessSettings {
  username: string;
  password: string;
  consent: ConsentDecision;
  browserDriver?: 'chromium';
  browserPath?: string;
  insecure: boolean;
}

/** The account options shared by `login --headless` and `audit`. */
export function addCredentialOptions(cmd: Command): Command {
  return cmd
    .option('--username <U>', `account name to log in with (also ${USERNAME_ENV})`)
    .option('--password <P>', `password to log in with (also ${PASSWORD_ENV}; prefer the variable, command lines are visible to other users)`);
}

export function addBrowserDriverOptions(cmd: Command): Command {
  return cmd
    .addOption(new Option('--browser-driver <NAME>', 'log in through a real headless browser, for login pages that need JavaScript (needs playwright-core)').choices(['chromium']))
    .option('--browser-path <PATH>', 'the browser executable for --browser-driver (default /usr/bin/chromium, else chromium on PATH)');
}

/**
 * Adds --headless and its options to `login`. They are checked before the command runs, so a missing
 * password fails at once (exit 2), before any discovery or listener.
 */
export function addHeadlessOptions(cmd: Command, env: NodeJS.ProcessEnv): Command {
  cmd.option('--headless', 'log in with the built-in user agent instead of a browser (HTML forms, cookies, redirects; for CI)');
  addCredentialOptions(cmd);
  cmd.addOption(new Option('--consent <ANSWER>', 'answer to the consent page with --headless (default approve)').choices(['approve', 'deny']));
  addBrowserDriverOptions(cmd);
  return cmd.hook('preAction', async (_, action) => {
    const raw = action.opts<HeadlessOptionsInput & { device?: boolean }>();
    if (!wantsHeadless(raw)) return;
    // The built-in agent asks for the account only when a login form appears; the others need it now.
    if (raw.device !== true && raw.browserDriver === undefined) {
      checkHeadlessChoices(raw);
      return;
    }
    const settings = resolveHeadlessOptions(raw, env);
    if (settings.browserDriver) await (await import('../../agent/browser-driver.js')).checkBrowserDriver(settings.browserPath, env);
  });
}

/** Checks the options and fills username and password from the environment; bad input is one line, exit 2. */
export function resolveHeadlessOptions(raw: HeadlessOptionsInput, env: NodeJS.ProcessEnv, command = '--headless'): HeadlessSettings {
  const username = raw.username ?? nonEmpty(env[USERNAME_ENV]);
  const password = raw.password ?? nonEmpty(env[PASSWORD_ENV]);
  if (username === undefined || username === '') {
    throw new UsageError(`${command} needs --username`, `give --username or set ${USERNAME_ENV}`);
  }
  if (password === undefined) {
    throw new UsageError(`${command} needs --password`, `give --password or set ${PASSWORD_ENV}`);
  }
  const consent = checkHeadlessChoices(raw);
  const settings: HeadlessSettings = { username, password, consent, insecure: raw.insecure === true };
  if (raw.browserDriver === 'chromium') settings.browserDriver = 'chromium';
  if (raw.browserPath !== undefined) settings.browserPath = raw.browserPath;
  return settings;
}

/** The options beside the account: --consent, --browser-driver, --browser-path; the consent decision. */
function checkHeadlessChoices(raw: HeadlessOptionsInput): ConsentDecision {
  const consent = raw.consent ?? 'approve';
  if (consent !== 'approve' && consent !== 'deny') throw new UsageError(`--consent must be approve or deny, got ${JSON.stringify(consent)}`);
  if (raw.browserDriver !== undefined && raw.browserDriver !== 'chromium') {
    throw new UsageError(`--browser-driver ${JSON.stringify(raw.browserDriver)} is not supported`, 'use --browser-driver chromium');
  }
  if (raw.browserPath !== undefined && raw.browserDriver === undefined) {
    throw new UsageError('--browser-path needs --browser-driver chromium');
  }
  return consent;
}

function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value === '' ? undefined : value;
}

/** True when the login options ask for a headless login (--headless, or --browser-driver which implies it). */
export function wantsHeadless(raw: HeadlessOptionsInput): boolean {
  if (raw.headless || raw.browserDriver !== undefined) return true;
  if (raw.username !== undefined || raw.password !== undefined || raw.consent !== undefined) {
    throw new UsageError('--username, --password and --consent are for a headless login', 'add --headless');
  }
  return false;
}

/**
 * The headless user agent (or the Chromium driver) for these options, its code loaded only now. The
 * built-in agent takes the account from the options or the environment, and asks for what is missing
 * only when a page asks for a login (`askAccount`).
 */
export async function headlessUserAgentFor(raw: HeadlessOptionsInput, env: NodeJS.ProcessEnv, askAccount?: AskAccount): Promise<UserAgent> {
  if (raw.browserDriver === 'chromium' || askAccount === undefined) {
    const settings = resolveHeadlessOptions(raw, env);
    if (settings.browserDriver === 'chromium') {
      const { createBrowserUserAgent } = await import('../../agent/browser-driver.js');
      return createBrowserUserAgent({ username: settings.username, password: settings.password, consent: settings.consent, browserPath: settings.browserPath });
    }
  }
  const username = nonEmpty(raw.username) ?? nonEmpty(env[USERNAME_ENV]);
  const password = raw.password ?? nonEmpty(env[PASSWORD_ENV]);
  const consent = checkHeadlessChoices(raw);
  const { createHeadlessUserAgent } = await import('../../agent/headless/agent.js');
  return createHeadlessUserAgent({ username, password, consent, askCredentials: askAccount, httpOptions: { insecure: raw.insecure === true, timeoutMs: httpTimeoutMs(raw) } });
}

/** Asks for the account a login page wants: what `given` lacks, both at once. */
export type AskAccount = (url: string, given: { username?: string | undefined; password?: string | undefined }) => Promise<{ username: string; password: string }>;
