import { OAuthError, parseOAuthErrorBody } from './errors.js';
import { constantTimeEqual } from './pkce.js';

/** Why an authorization response was refused before any token request. */
export type AuthorizationResponseProblem = 'state_mismatch' | 'state_missing' | 'iss_mismatch' | 'iss_missing' | 'code_missing';

export class AuthorizationResponseError extends Error {
  readonly code: AuthorizationResponseProblem;

  constructor(code: AuthorizationResponseProblem, message: string) {
    super(message);
    this.name = 'AuthorizationResponseError';
    this.code = code;
  }
}

export interface AuthorizationResponseExpectations {
  /** The state sent in the request. */
  state: string;
  /** The issuer the client knows (from --issuer or discovery); enables the RFC 9207 check. */
  issuer?: string | undefined;
  /** The metadata says authorization_response_iss_parameter_supported: then iss must be present. */
  issRequired?: boolean | undefined;
}

export interface AuthorizationCodeResponse {
  code: string;
  state: string;
  iss?: string;
}

/**
 * Checks a redirect's parameters in this order: state first (RFC 6749 section 10.12: a mismatch means
 * the response is not ours, so nothing of it is used, not even an error), then an error response
 * (section 4.1.2.1), then iss (RFC 9207 section 2.4), then the code.
 */
export function validateAuthorizationResponse(params: Readonly<Record<string, string>>, expected: AuthorizationResponseExpectations): AuthorizationCodeResponse {
  const state = params.state;
  if (state === undefined) {
    throw new AuthorizationResponseError('state_missing', `the redirect carries no state${alsoError(params)}`);
  }
  if (!constantTimeEqual(state, expected.state)) {
    throw new AuthorizationResponseError('state_mismatch', `state mismatch: the redirect's state is not the one sent${alsoError(params)}`);
  }
  const error = parseOAuthErrorBody(params);
  if (error) throw new OAuthError(error);

  const iss = params.iss;
  if (expected.issuer !== undefined) {
    if (iss !== undefined && iss !== expected.issuer) {
      throw new AuthorizationResponseError('iss_mismatch', `the redirect's iss ${JSON.stringify(iss)} is not the issuer ${JSON.stringify(expected.issuer)} (RFC 9207)`);
    }
    if (iss === undefined && expected.issRequired) {
      throw new AuthorizationResponseError('iss_missing', 'the redirect carries no iss although the server metadata says it sends one (RFC 9207)');
    }
  }
  const code = params.code;
  if (code === undefined || code === '') {
    throw new AuthorizationResponseError('code_missing', 'the redirect carries neither a code nor an error');
  }
  const out: AuthorizationCodeResponse = { code, state };
  if (iss !== undefined) out.iss = iss;
  return out;
}

function alsoError(params: Readonly<Record<string, string>>): string {
  return params.error ? ` (it also says error=${params.error}, which is ignored)` : '';
}
