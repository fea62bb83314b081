import { FlowError, UsageError } from '../../errors.js';
import type { DeviceAuthorizationResponse } from '../../oauth/device.js';
import { escapeTerminal } from '../../output/escape.js';
import type { IO } from '../../output/io.js';
import type { Renderer } from '../../output/render.js';
import { formatTimeLeft, startSpinner } from '../../output/spinner.js';
import type { CommonOptions } from '../program/command.js';
import type { FlowOptionsInput } from '../options/flow-options.js';
import { createFlowRuntime, resolveFlowConfig } from '../options/flow-pipeline.js';
import { resolveHeadlessOptions, wantsHeadless, type HeadlessOptionsInput } from '../options/headless-options.js';

/** What `login --device` uses of login's options. */
export interface DeviceLoginOptions extends FlowOptionsInput, CommonOptions, HeadlessOptionsInput {
  browser?: boolean;
  json?: boolean;
  cache?: boolean;
  call?: string;
  manual?: boolean;
}

/**
 * `login --device`: the device authorization grant (RFC 8628). The device authorization request, then
 * the verification URI and user code on stderr (and a QR code on a terminal), the browser opened on
 * verification_uri_complete unless --no-browser (or the page completed by the built-in agent with
 * --headless), polling until the tokens come; then the same ID token checks and cache as `login`.
 */
export async function runDeviceLogin(options: DeviceLoginOptions, io: IO, timeoutMs: number): Promise<number> {
  if (options.manual) throw new UsageError('--manual and --device cannot be used together', 'the device flow has no redirect to paste');
  if (options.call !== undefined) throw new UsageError('--call is not available with --device', 'run oauthctl call URL after the login');
  const headless = wantsHeadless(options) ? resolveHeadlessOptions(options, io.env) : undefined;
  const { renderer, http } = await createFlowRuntime(options, io);
  try {
    const config = await resolveFlowConfig(options, io, { http, renderer, needs: 'token' });
    const [{ endpointOf }, { requestDeviceAuthorization, pollForDeviceTokens }] = await Promise.all([import('../../client/flows/endpoints.js'), import('../../client/flows/device.js')]);
    const endpoint = await endpointOf(http, config, 'device_authorization_endpoint');
    if (endpoint === undefined) {
      throw new UsageError('no device authorization endpoint known: the server metadata names none', 'give --device-authorization-endpoint, or --issuer of a server that offers the device flow');
    }
    renderer.step('Device authorization request');
    renderer.info(`POST ${endpoint} (client authentication: ${config.authMethod}${config.scopes.length ? `, scope=${config.scopes.join(' ')}` : ''})`);
    const device = await requestDeviceAuthorization(http, config, endpoint);
    await showUserCode(io, renderer, device);

    const controller = new AbortController();
    const pageUrl = device.verification_uri_complete ?? device.verification_uri;
    let agentFailed = new Promise<never>(() => undefined);
    if (headless) {
      const { completeVerification } = await import('../../agent/device-verification.js');
      agentFailed = completeVerification(pageUrl, headless, { io, renderer, signal: controller.signal }).then(
        () => new Promise<never>(() => undefined),
        (err: unknown) => {
          throw err;
        },
      );
    } else if (options.browser !== false) {
      const { systemBrowserUserAgent } = await import('../../agent/browser.js');
      await systemBrowserUserAgent({ authorizationUrl: pageUrl, redirectUri: '', signal: controller.signal, io, renderer });
    }
    const deadline = Date.now() + Math.min(timeoutMs, device.expires_in * 1000);
    const spinner = startSpinner(io.stderr, () => `Waiting for the sign-in at ${device.verification_uri} (${formatTimeLeft(deadline - Date.now())} left, Ctrl-C to stop)`, io.env);
    let tokens;
    try {
      tokens = await Promise.race([
        pollForDeviceTokens(http, config, device, {
          timeoutMs,
          signal: controller.signal,
          onPending: (error, interval) => renderer.trace(`poll: ${error}; next in ${interval} s`),
        }),
        agentFailed,
      ]);
    } finally {
      spinner.stop();
      controller.abort(new FlowError('the flow ended'));
    }
    renderer.step('Token response');
    const [{ narrateTokenResponse, printTokenResponse, warnScopesNotGranted }, { afterLogin }] = await Promise.all([import('../../output/tokens.js'), import('./after-login.js')]);
    narrateTokenResponse(renderer, tokens);
    warnScopesNotGranted(renderer, config.scopes, tokens);
    // No authorization request, so no nonce to match (the device authorization request carries none).
    await afterLogin({ config: { ...config, extraParams: {} }, tokens, http, renderer, io, profile: options.profile, cache: options.cache });
    printTokenResponse(io, tokens, options.json);
    return 0;
  } finally {
    await http.close();
  }
}

/**
 * RFC 8628 section 3.3: the URI and the code, large and plain, on stderr; on a terminal also a QR code
 * of verification_uri_complete for a phone (section 3.3.1). Both come from the server: the renderer escapes them.
 */
async function showUserCode(io: IO, renderer: Renderer, device: DeviceAuthorizationResponse): Promise<void> {
  renderer.line('');
  renderer.line('To sign in, open this page on any device:');
  renderer.line('');
  renderer.info(device.verification_uri, 'bold');
  renderer.line('');
  renderer.line('and enter the code:');
  renderer.line('');
  renderer.info(device.user_code, 'bold');
  renderer.line('');
  if (io.stderr.isTTY !== true) return;
  const target = device.verification_uri_complete ?? device.verification_uri;
  try {
    // uqr: a zero-dependency QR encoder; two modules a character, with a quiet zone of two.
    const { renderUnicodeCompact } = await import('uqr');
    const qr = renderUnicodeCompact(target, { border: 2 });
    io.stderr.write(`Or scan this with a phone (${escapeTerminal(target)}):\n\n${qr}\n`);
  } catch (err) {
    renderer.trace(`no QR code: ${err instanceof Error ? err.message : String(err)}`);
  }
}
