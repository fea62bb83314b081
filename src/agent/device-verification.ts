import { FlowError } from '../errors.js';
import { createHttpClient } from '../client/http/http.js';
import { escapeTerminal } from '../output/escape.js';
import type { IO } from '../output/io.js';
import type { Renderer } from '../output/render.js';
import { CookieJar } from './headless/cookies.js';
import type { ConsentDecision } from './headless/forms.js';
import { DEFAULT_MAX_STEPS, navigate, type NavigationResult } from './headless/navigate.js';
import { quote } from './headless/page-errors.js';

export interface VerificationAgentOptions {
  username: string;
  password: string;
  consent: ConsentDecision;
  browserDriver?: 'chromium' | undefined;
  browserPath?: string | undefined;
  insecure?: boolean | undefined;
}

export interface VerificationContext {
  io: IO;
  renderer: Renderer;
  signal: AbortSignal;
}

/** No redirect URI in the device flow: the walk ends on a page with nothing left to do (the server's "done" page). */
const NO_REDIRECT = 'http://oauthctl-device-flow.invalid/';

/**
 * `login --device --headless`: plays the user at the verification page (RFC 8628 section 3.3) with the
 * built-in agent (or Chromium with --browser-driver): opens verification_uri_complete, confirms the code,
 * logs in and answers the consent page, then stops at the first page with nothing to do. It never
 * leaves the verification page's origin. The outcome the device sees comes from polling; a page that
 * refuses (HTTP 4xx or 5xx) fails here at once.
 */
export async function completeVerification(verificationUrl: string, options: VerificationAgentOptions, ctx: VerificationContext): Promise<void> {
  const renderer = ctx.renderer;
  const origin = new URL(verificationUrl).origin;
  const walk = {
    redirectUri: NO_REDIRECT,
    consent: options.consent,
    credentials: { username: options.username, password: options.password },
    maxSteps: DEFAULT_MAX_STEPS,
    trace: (line: string) => renderer.trace(line),
    showSecrets: ctx.renderer.showSecrets,
    stopBefore: (url: URL) => url.origin !== origin,
  };
  let result: NavigationResult;
  if (options.browserDriver === 'chromium') {
    ctx.renderer.step('Verification page (Chromium)');
    const { createBrowserNavigator } = await import('./browser-driver.js');
    const navigator = await createBrowserNavigator({ browserPath: options.browserPath, env: ctx.io.env, har: ctx.renderer.har, warn: (line) => ctx.renderer.warn(line) });
    try {
      result = await navigator.navigate(verificationUrl, walk);
    } finally {
      await navigator.close();
    }
  } else {
    ctx.renderer.step('Verification page (headless)');
    const http = createHttpClient({ insecure: options.insecure, renderer: { ...renderer, warn: () => undefined }, env: ctx.io.env, actor: 'user-agent', secrets: [options.password] });
    try {
      result = await navigate(verificationUrl, { ...walk, http, jar: new CookieJar(), signal: ctx.signal });
    } finally {
      await http.close();
    }
  }
  if (result.kind === 'redirect') throw new FlowError(`the verification page sent the browser off to ${result.url}`, 'the device flow has no redirect; run with --verbose to see every step');
  if (result.status >= 400) {
    throw new FlowError(`the verification page refused: HTTP ${result.status}${result.text ? ` ${quote(result.text)}` : ''}`, 'start again for a fresh code; run with --verbose to see every step');
  }
  ctx.renderer.info(`verification page done after ${result.steps} step${result.steps === 1 ? '' : 's'}${result.text ? `: ${escapeTerminal(result.text)}` : ''}`);
}
