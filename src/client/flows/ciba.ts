import { FlowError } from '../../errors.js';
import {
  BackchannelAuthenticationResponseError,
  backchannelAuthenticationParams,
  CIBA_GRANT,
  parseBackchannelAuthenticationResponse,
  type BackchannelAuthenticationRequest,
  type BackchannelAuthenticationResponse,
} from '../../oauth/ciba.js';
import { explainOAuthError, OAuthError } from '../../oauth/errors.js';
import type { TokenResponse } from '../../oauth/token-request.js';
import { postAuthenticated } from './endpoint-request.js';
import type { FlowConfig } from './flow-config.js';
import type { HttpClient } from '../http/http.js';
import { pollForTokens, requestPolledGrant, type PolledGrant, type PollOptions } from './polling.js';

/** CIBA Core 1.0 section 7.1: the backchannel authentication request, with the client's authentication as configured. */
export async function requestBackchannelAuthentication(http: HttpClient, config: FlowConfig, endpoint: string, request: BackchannelAuthenticationRequest): Promise<BackchannelAuthenticationResponse> {
  const res = await postAuthenticated(http, config, endpoint, { ...backchannelAuthenticationParams(request), resource: config.resources }, { dpop: config.dpop });
  try {
    return parseBackchannelAuthenticationResponse(res.status, res.body);
  } catch (err) {
    if (err instanceof OAuthError) throw new FlowError(`the backchannel authentication request was refused: ${err.message}`, explainOAuthError(err.error) ?? `HTTP ${res.status}`);
    if (err instanceof BackchannelAuthenticationResponseError) throw new FlowError(err.message, 'check --backchannel-authentication-endpoint; run with --verbose to see the exchange');
    throw err;
  }
}

/** The CIBA grant as the shared polling rule sees it (sections 7.3, 10.1 and 11). */
export function cibaGrant(ack: BackchannelAuthenticationResponse): PolledGrant {
  return {
    grant: { grant_type: CIBA_GRANT, auth_req_id: ack.auth_req_id },
    interval: ack.interval,
    expiresIn: ack.expires_in,
    expired: { message: `the request expired after ${ack.expires_in} s before the user decided`, hint: 'start again, and approve on the authentication device sooner' },
    timedOutHint: 'approve on the authentication device sooner, or raise --timeout',
    deniedHint: 'the user refused the request on the authentication device',
    expiredTokenHint: 'the request expired before the user decided: start again, and approve on the authentication device sooner',
  };
}

/** Poll mode (section 7.3): token requests with the auth_req_id until the user has decided. */
export function pollForCibaTokens(http: HttpClient, config: FlowConfig, ack: BackchannelAuthenticationResponse, options: PollOptions): Promise<TokenResponse> {
  return pollForTokens(http, config, cibaGrant(ack), options);
}

/** Ping mode (section 10.2): once the server has pinged, one token request; its ends are explained as in poll mode. */
export function requestCibaTokens(http: HttpClient, config: FlowConfig, ack: BackchannelAuthenticationResponse): Promise<TokenResponse> {
  return requestPolledGrant(http, config, cibaGrant(ack));
}

/** The notification token of ping mode (section 7.1): fresh, 256 bits of randomness. */
export { randomToken as newClientNotificationToken } from '../../oauth/random.js';
