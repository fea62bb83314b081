import { CliError, FlowError } from '../../errors.js';
import { AuthorizationResponseError, validateAuthorizationResponse } from '../../oauth/authorization-response.js';
import { explainOAuthError, OAuthError } from '../../oauth/errors.js';
import type { TokenResponse } from '../../oauth/token-request.js';
import { harClock } from '../../output/har.js';
import type { IO } from '../../output/io.js';
import { redactParams } from '../../output/redact.js';
import { holdRequest, STEP_TITLES } from '../../output/step.js';
import type { Renderer } from '../../output/render.js';
import { narrateTokenResponse, warnScopesNotGranted } from '../../output/tokens.js';
import { authorizationCodeGrant, type FlowConfig } from './flow-config.js';
import type { HttpClient } from '../http/http.js';
import { startRedirectListener, type RedirectCapture, type RedirectReceiver } from '../listeners/listener.js';
import { followRedirectUri } from '../listeners/redirect-follow.js';
import { formatTimeLeft, startSpinner } from '../../output/spinner.js';
import { requestToken } from './token.js';
import type { UserAgent } from './user-agent.js';

export interface AuthorizationCodeFlowOptions {
  config: FlowConfig;
  /** Takes the user to the authorization URL: system browser, --no-browser, headless... */
  userAgent: UserAgent;
  /** Where the redirect comes from; default: a loopback listener on config.redirectUri. */
  receiveRedirect?: (config: FlowConfig) => Promise<RedirectReceiver>;
  /** How long to wait for the redirect. */
  timeoutMs: number;
  http: HttpClient;
  renderer: Renderer;
  io: IO;
}

export interface AuthorizationCodeFlowResult {
  /** The token endpoint's JSON object, exactly as received. */
  tokenResponse: TokenResponse;
  authorizationUrl: string;
  /** The redirect URI actually used (with the listener's port). */
  redirectUri: string;
  capture: RedirectCapture;
}

/**
 * The authorization code flow (RFC 6749 section 4.1, with PKCE per RFC 7636): start receiving the
 * redirect, send the user agent to the authorization endpoint, check the redirect (state first, then
 * error, then iss), exchange the code.
 */
export async function runAuthorizationCodeFlow(options: AuthorizationCodeFlowOptions): Promise<AuthorizationCodeFlowResult> {
  const { config, renderer } = options;
  let receiver = await (options.receiveRedirect ?? ((c: FlowConfig) => startRedirectListener({ redirectUri: c.redirectUri, expectedState: c.state, har: renderer.har })))(config);
  try {
    const { prepareAuthorizationUrl } = await import('./pushed-authorization.js');
    const prepared = await prepareAuthorizationUrl(options.http, config, receiver.redirectUri, renderer);
    // --step: the person may edit the query before the user agent is sent there (RFC 6749 section 4.1.1).
    const stepped = await holdAuthorizationRequest(renderer, prepared, receiver, config.state);
    const { held } = stepped;
    receiver = stepped.receiver;
    const authorizationUrl = held.request.url;
    if (held.edits.length > 0) renderer.warn(`you changed the authorization request before it was sent: ${held.edits.join('; ')}`);

    renderer.step('Authorization request');
    renderer.info(`GET ${config.authorizationEndpoint}`);
    if (config.dpop) renderer.info(`DPoP key thumbprint (dpop_jkt): ${config.dpop.key.jkt}`);
    for (const [name, value] of new URL(authorizationUrl).searchParams) renderer.info(`  ${name}=${value}`);
    if (config.pkce) renderer.info(`code_verifier (kept for the token request): ${redactParams({ code_verifier: config.pkce.codeVerifier }, renderer.showSecrets).code_verifier}`);
    // --trace: the request as the client sent the user agent off with it (the browser's own traffic is not oauthctl's to see).
    renderer.har?.record({
      actor: 'client',
      handoff: true,
      startedAt: harClock(),
      durationMs: 0,
      method: 'GET',
      url: authorizationUrl,
      requestHeaders: [],
      status: 0,
      responseHeaders: [],
      responseBody: '',
      edits: held.edits.length > 0 ? held.edits : undefined,
    });

    const capture = await holdRedirect(renderer, await waitForRedirect(options, receiver, authorizationUrl));

    renderer.step('Redirect received');
    renderer.info(`${capture.method} ${capture.url.split(/[?#]/)[0]} (parameters in the ${capture.via === 'form_post' ? 'form body' : capture.via})`);
    for (const [name, value] of Object.entries(capture.params)) renderer.info(`  ${name}=${value}`);
    const { authorizationResponseParams } = await import('../responses/jarm.js');
    const response = checkRedirect(capture, await authorizationResponseParams(options.http, config, capture, renderer), config);
    renderer.ok(`state matches${response.iss !== undefined && config.issuer !== undefined ? `; iss matches ${response.iss}` : ''}`);

    renderer.step('Token request');
    renderer.info(
      `POST ${config.tokenEndpoint} (grant_type=authorization_code, client authentication: ${config.authMethod}${config.pkce ? ', with code_verifier' : ''}${config.dpop ? ', with a DPoP proof' : ''})`,
    );
    const tokenResponse = await requestToken(options.http, config, authorizationCodeGrant(config, response.code, receiver.redirectUri), { renderer });
    if (config.fapi2 && config.dpop && tokenResponse.token_type?.toLowerCase() !== 'dpop') {
      // FAPI 2.0 Security Profile section 5.3.3.1: sender-constrained tokens only, no bearer fallback.
      throw new FlowError(
        `the server issued a ${JSON.stringify(tokenResponse.token_type ?? '(no token_type)')} token, not a DPoP-bound one`,
        'FAPI 2.0 takes sender-constrained tokens only; the token is not used',
      );
    }
    renderer.step('Token response');
    narrateTokenResponse(renderer, tokenResponse);
    warnScopesNotGranted(renderer, config.scopes, tokenResponse);
    return { tokenResponse, authorizationUrl, redirectUri: receiver.redirectUri, capture };
  } finally {
    await receiver.close();
  }
}

/**
 * --step's stop before the authorization request. An edited redirect_uri is followed (the listener
 * waits where it now points) or refused with the reason, one line on the terminal and on the page,
 * and the request asked about again as it was.
 */
async function holdAuthorizationRequest(renderer: Renderer, prepared: string, receiver: RedirectReceiver, state: string | undefined) {
  let note: string | undefined;
  for (;;) {
    const held = await holdRequest(renderer.har, 'authorization', STEP_TITLES.authorization!, { method: 'GET', url: prepared, headers: [] }, note);
    const edited = new URL(held.request.url).searchParams.get('redirect_uri');
    if (edited === null || edited === receiver.redirectUri || edited === new URL(prepared).searchParams.get('redirect_uri')) return { held, receiver };
    const followed = await followRedirectUri(receiver, edited, { expectedState: state, har: renderer.har });
    if ('receiver' in followed) {
      renderer.info(`the listener now waits for the redirect at ${followed.receiver.redirectUri}`);
      return { held, receiver: followed.receiver };
    }
    renderer.warn(followed.refused);
    note = followed.refused;
  }
}

/** Runs the user agent and waits for the redirect, whichever fails first ends the wait; so does the timeout. */
async function waitForRedirect(options: AuthorizationCodeFlowOptions, receiver: RedirectReceiver, authorizationUrl: string): Promise<RedirectCapture> {
  const { renderer, io, timeoutMs } = options;
  const controller = new AbortController();
  const seconds = Math.round(timeoutMs / 1000);
  const deadline = Date.now() + timeoutMs;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(redirectTimeout(seconds, receiver, launchFailure));
    }, timeoutMs);
  });
  let launchFailure: string | undefined;
  let failBrowser: (err: Error) => void = () => undefined;
  const browserFailed = new Promise<never>((_, reject) => (failBrowser = reject));
  const browserFailedAt = (error: Error, fatal: boolean) => (fatal ? failBrowser(error) : (launchFailure = error.message));
  const agentFailed = options.userAgent({ authorizationUrl, redirectUri: receiver.redirectUri, signal: controller.signal, io, renderer, browserFailed: browserFailedAt }).then(
    () => new Promise<never>(() => undefined),
    (err: unknown) => {
      throw err instanceof CliError ? err : new FlowError(`the user agent failed: ${err instanceof Error ? err.message : String(err)}`);
    },
  );
  // A pasted URL has no listener to wait on: the paste prompt is all the user needs to see.
  const spinner = receiver.pasted
    ? undefined
    : startSpinner(io.stderr, () => `Waiting for the redirect to ${receiver.redirectUri} (${formatTimeLeft(deadline - Date.now())} left, Ctrl-C to stop)`, io.env);
  try {
    return await Promise.race([receiver.waitForRedirect(controller.signal), agentFailed, browserFailed, timeout]);
  } finally {
    spinner?.stop();
    clearTimeout(timer);
    controller.abort(new FlowError('the flow ended'));
  }
}

/**
 * --step: the redirect as it came back, before the client reads it (RFC 6749 section 4.1.2); the
 * person may change what the client will take from it (a code, a state) to see what follows.
 */
async function holdRedirect(renderer: Renderer, capture: RedirectCapture): Promise<RedirectCapture> {
  if (renderer.har?.stepper === undefined) return capture;
  const url = new URL(capture.url.split('#')[0]!);
  url.search = new URLSearchParams(Object.entries(capture.params)).toString();
  const { request, edits } = await holdRequest(renderer.har, 'callback', STEP_TITLES.callback!, { method: 'GET', url: url.href, headers: [] });
  if (edits.length === 0) return capture;
  renderer.warn(`you changed the redirect before the client read it: ${edits.join('; ')}`);
  const seen = renderer.har.exchanges.findLast((x) => x.actor === 'listener');
  if (seen) seen.edits = edits;
  renderer.har.changed();
  return { ...capture, params: Object.fromEntries(new URL(request.url).searchParams) };
}

/** State first: a mismatch means nothing in the redirect is used, and no token request is sent. */
function checkRedirect(capture: RedirectCapture, params: Record<string, string>, config: FlowConfig) {
  if (capture.repeated) {
    throw new FlowError(`the redirect repeats ${capture.repeated.join(', ')}`, 'no token request was sent: a parameter must not be included more than once (RFC 6749 section 3.1)');
  }
  try {
    return validateAuthorizationResponse(params, {
      state: config.state,
      issuer: config.issuer,
      // FAPI 2.0 Security Profile section 5.3.3.2 (RFC 9207): the client requires iss.
      issRequired: config.fapi2 === true || config.metadata?.authorization_response_iss_parameter_supported === true,
    });
  } catch (err) {
    if (err instanceof OAuthError) {
      const meaning = explainOAuthError(err.error);
      throw new FlowError(`the authorization server answered ${err.message}`, meaning ?? 'see the authorization server for details');
    }
    if (err instanceof AuthorizationResponseError) {
      const hint =
        err.code === 'state_mismatch' || err.code === 'state_missing'
          ? 'no token request was sent; the redirect may be forged or stale (CSRF, RFC 6749 section 10.12): start again'
          : 'no token request was sent (RFC 9207 mix-up protection)';
      throw new FlowError(err.message, hint);
    }
    throw err;
  }
}

/**
 * The timeout's failure, with what usually causes it: the server refused the redirect URI (it shows an
 * error page instead of redirecting) or the login was not finished; and how to see which.
 */
function redirectTimeout(seconds: number, receiver: RedirectReceiver, launchFailure: string | undefined): FlowError {
  if (receiver.pasted) {
    return new FlowError(`timed out after ${seconds} s waiting for the redirect URL to be pasted`, 'paste the address the browser was sent to after the login, or raise --timeout');
  }
  const uri = new URL(receiver.redirectUri);
  const listen = `oauthctl listen --port ${uri.port || (uri.protocol === 'https:' ? 443 : 80)} --path ${uri.pathname}`;
  if (launchFailure !== undefined) {
    return new FlowError(
      `timed out after ${seconds} s waiting for the redirect to ${receiver.redirectUri}: the browser failed (${launchFailure})`,
      'log in without it: --headless (the built-in user agent), or --no-browser to print the URL and open it on another machine',
    );
  }
  return new FlowError(
    `timed out after ${seconds} s waiting for the redirect to ${receiver.redirectUri}: nothing came back`,
    'the usual causes: the redirect URI, or its port, is not registered for the client (the server then shows an error page instead of redirecting), ' +
      'or the login was not finished in the browser; to see the page, run again with --no-browser and open the URL it prints; ' +
      `to see what a redirect carries, run \`${listen}\` and log in with that URI; or raise --timeout`,
  );
}
