import { FlowError, UsageError } from '../../errors.js';
import { mockAdminApi } from '../../oauth/mock-admin.js';
import { parseScope } from '../../oauth/scope.js';
import type { IO } from '../../output/io.js';
import { formatTimeLeft, startSpinner } from '../../output/spinner.js';
import { parseCibaOptions, type CibaOptionsInput } from '../options/ciba-options.js';
import type { CommonOptions } from '../program/command.js';
import type { FlowOptionsInput } from '../options/flow-options.js';
import { createFlowRuntime, resolveFlowConfig } from '../options/flow-pipeline.js';

/** What `login --ciba` uses of login's options. */
export interface CibaLoginOptions extends FlowOptionsInput, CommonOptions, CibaOptionsInput {
  json?: boolean;
  cache?: boolean;
  call?: string;
  manual?: boolean;
  device?: boolean;
  headless?: boolean;
  tokenStore?: string | undefined;
}

/** Where the ping is received when no --client-notification-endpoint is given. */
const DEFAULT_PING_PATH = '/ciba/notify';

/**
 * `login --ciba`: OpenID Connect CIBA Core 1.0. The backchannel authentication request (section 7.1,
 * with the client's authentication as configured), then poll mode (token requests at the interval, the
 * device grant's polling rule) or ping mode (a loopback notification endpoint, then one token request);
 * then the same ID token checks, cache and output as `login`.
 */
export async function runCibaLogin(options: CibaLoginOptions, io: IO, timeoutMs: number): Promise<number> {
  if (options.device) throw new UsageError('--ciba and --device cannot be used together', 'give one of them');
  if (options.manual || options.headless)
    throw new UsageError(`--${options.manual ? 'manual' : 'headless'} and --ciba cannot be used together`, 'with --ciba the user signs in on their own device: no page here');
  if (options.call !== undefined) throw new UsageError('--call is not available with --ciba', 'run oauthctl call URL after the login');
  const ciba = parseCibaOptions(options);
  const { renderer, http } = await createFlowRuntime(options, io);
  try {
    const config = await resolveFlowConfig(options, io, { http, renderer, needs: 'token' });
    // Section 7.1: scope must include openid.
    if (!config.scopes.includes('openid')) {
      config.scopes = ['openid', ...config.scopes];
      renderer.info('scope: openid added (CIBA Core section 7.1 asks for it)');
    }
    const [{ endpointOf }, client] = await Promise.all([import('../../client/flows/endpoints.js'), import('../../client/flows/ciba.js')]);
    const endpoint = await endpointOf(http, config, 'backchannel_authentication_endpoint');
    if (endpoint === undefined) {
      throw new UsageError('no backchannel authentication endpoint known: the server metadata names none', 'give --backchannel-authentication-endpoint, or --issuer of a server that offers CIBA');
    }
    const notificationToken = ciba.mode === 'ping' ? client.newClientNotificationToken(256) : undefined;
    const ping =
      notificationToken === undefined
        ? undefined
        : await (
            await import('../../client/listeners/ciba-ping.js')
          ).startPingListener({
            host: ciba.notificationEndpoint?.hostname.replace(/^\[|\]$/g, '') ?? '127.0.0.1',
            port: ciba.notificationEndpoint ? Number(ciba.notificationEndpoint.port) : 0,
            path: ciba.notificationEndpoint?.pathname ?? DEFAULT_PING_PATH,
            notificationToken,
          });
    const controller = new AbortController();
    try {
      if (ping) {
        ping.onRefused = (why) => renderer.warn(`notification endpoint: refused ${why}`);
        renderer.info(`ping mode: listening at ${ping.url} (it must be the client's registered backchannel_client_notification_endpoint)`);
      }
      renderer.step('Backchannel authentication request');
      renderer.info(`POST ${endpoint} (client authentication: ${config.authMethod}, scope=${config.scopes.join(' ')})`);
      const ack = await client.requestBackchannelAuthentication(http, config, endpoint, {
        scope: config.scopes.join(' '),
        ...(ciba.loginHint !== undefined ? { login_hint: ciba.loginHint } : {}),
        ...(ciba.idTokenHint !== undefined ? { id_token_hint: ciba.idTokenHint } : {}),
        ...(ciba.bindingMessage !== undefined ? { binding_message: ciba.bindingMessage } : {}),
        ...(ciba.acrValues !== undefined ? { acr_values: parseScope(ciba.acrValues).join(' ') } : {}),
        ...(ciba.requestedExpiry !== undefined ? { requested_expiry: ciba.requestedExpiry } : {}),
        ...(notificationToken !== undefined ? { client_notification_token: notificationToken } : {}),
      });
      renderer.info(`acknowledged: the request lives ${ack.expires_in} s${ack.interval !== undefined ? `, poll every ${ack.interval} s` : ''}`);
      renderer.info(`auth_req_id: ${ack.auth_req_id}`);
      const approve = mockApproval(config.metadata, ack.auth_req_id);
      if (approve !== undefined) renderer.info(approve);
      if (ciba.bindingMessage !== undefined) {
        renderer.line('');
        renderer.line('Approve on your device the request showing:');
        renderer.info(ciba.bindingMessage, 'bold');
        renderer.line('');
      }
      const deadline = Date.now() + Math.min(timeoutMs, ack.expires_in * 1000);
      const spinner = startSpinner(io.stderr, () => `Waiting for the user to approve on their device (${formatTimeLeft(deadline - Date.now())} left, Ctrl-C to stop)`, io.env);
      let tokens;
      try {
        if (ping) {
          const timer = setTimeout(() => controller.abort(expiredOrTimedOut(timeoutMs, ack.expires_in)), deadline - Date.now());
          try {
            await ping.waitForPing(ack.auth_req_id, controller.signal);
          } finally {
            clearTimeout(timer);
          }
          renderer.info('the server pinged: the user has decided (CIBA Core section 10.2)');
          tokens = await client.requestCibaTokens(http, config, ack);
        } else {
          tokens = await client.pollForCibaTokens(http, config, ack, {
            timeoutMs,
            signal: controller.signal,
            onPending: (error, interval) => renderer.trace(`poll: ${error}; next in ${interval} s`),
          });
        }
      } finally {
        spinner.stop();
      }
      renderer.step('Token response');
      const [{ narrateTokenResponse, printTokenResponse, warnScopesNotGranted }, { afterLogin }] = await Promise.all([import('../../output/tokens.js'), import('./after-login.js')]);
      narrateTokenResponse(renderer, tokens);
      warnScopesNotGranted(renderer, config.scopes, tokens);
      // No authorization request, so no nonce to match.
      await afterLogin({ config: { ...config, extraParams: {} }, tokens, http, renderer, io, profile: options.profile, cache: options.cache, tokenStore: options.tokenStore });
      printTokenResponse(io, tokens, options.json);
      return 0;
    } finally {
      controller.abort(new FlowError('the flow ended'));
      await ping?.close();
    }
  } finally {
    await http.close();
  }
}

/**
 * Against oauthctl's mock (its metadata says so: src/oauth/mock-admin.ts), how to approve as its
 * user: the page, or the admin API call with this auth_req_id. Only an auth_req_id of URL-safe
 * characters (the mock's are base64url) is put in the command, so what is printed to paste into a
 * shell is never another server's text.
 */
function mockApproval(metadata: { issuer?: unknown; service_documentation?: unknown } | undefined, authReqId: string): string | undefined {
  const admin = mockAdminApi(metadata);
  if (admin === undefined || !/^[A-Za-z0-9._~-]{1,200}$/.test(authReqId)) return undefined;
  const issuer = admin.slice(0, -'/_mock/'.length);
  return `the mock: approve at ${issuer}/ciba as the user, or: curl -s ${admin}ciba -d '{"auth_req_id":"${authReqId}","action":"approve"}'`;
}

function expiredOrTimedOut(timeoutMs: number, expiresIn: number): FlowError {
  return timeoutMs >= expiresIn * 1000
    ? new FlowError(`the request expired after ${expiresIn} s before the server pinged`, 'start again, and approve on the authentication device sooner')
    : new FlowError(`timed out after ${Math.round(timeoutMs / 1000)} s waiting for the server's ping`, 'approve on the authentication device sooner, or raise --timeout');
}
