/**
 * OAuth error codes with a sentence each, so that a user sees what the server meant.
 * RFC 6749 sections 4.1.2.1 (authorization response) and 5.2 (token response), RFC 6750 section 3.1
 * (protected resources), RFC 7009 and OpenID Connect Core 3.1.2.6.
 */
export const OAUTH_ERROR_MEANINGS: Readonly<Record<string, string>> = {
  invalid_request: 'the request is missing a required parameter, repeats one, or is otherwise malformed',
  unauthorized_client: 'the client is not allowed to use this grant or response type',
  access_denied: 'the resource owner or the authorization server refused the request',
  unsupported_response_type: 'the server does not support this response_type for this client',
  invalid_scope: 'a requested scope is invalid, unknown or not allowed for this client',
  server_error: 'the authorization server hit an unexpected condition',
  temporarily_unavailable: 'the authorization server is overloaded or down for maintenance',
  invalid_client: 'client authentication failed (unknown client, wrong secret or wrong auth method)',
  invalid_grant: 'the code or refresh token is invalid, expired, revoked, already used, or was issued to another client or redirect URI',
  unsupported_grant_type: 'the server does not support this grant_type',
  invalid_token: 'the access token is expired, revoked, malformed or invalid',
  insufficient_scope: 'the access token lacks the scope this resource needs',
  unsupported_token_type: 'the server cannot revoke this type of token',
  login_required: 'the user must log in (prompt=none was sent but there is no session)',
  consent_required: 'the user must consent (prompt=none was sent but consent is missing)',
  interaction_required: 'the user must interact with the server (prompt=none was sent)',
  authorization_pending: 'the user has not finished at the verification page yet (RFC 8628 section 3.5)',
  slow_down: 'the client polls too often; it must wait 5 seconds longer between polls (RFC 8628 section 3.5)',
  expired_token: 'the device code has expired; start again (RFC 8628 section 3.5)',
  unknown_user_id: 'the server knows no user by the hint sent (login_hint or id_token_hint; CIBA Core section 13)',
  expired_login_hint_token: 'the login_hint_token has expired (CIBA Core section 13)',
  invalid_binding_message: 'the binding message is too long or has characters the server will not show (CIBA Core section 13)',
  invalid_target: 'the server will not issue a token for this resource (RFC 8707 section 2), or, in a token exchange, for this audience (RFC 8693 section 2.2.2)',
};

export function explainOAuthError(code: string): string | undefined {
  return OAUTH_ERROR_MEANINGS[code];
}

export interface OAuthErrorFields {
  error: string;
  error_description?: string;
  error_uri?: string;
}

/** An OAuth error as the server sent it: `error`, `error_description` and `error_uri` kept intact. */
export class OAuthError extends Error {
  readonly code = 'OAUTH_ERROR';
  readonly error: string;
  readonly error_description?: string;
  readonly error_uri?: string;
  /** HTTP status, where the error came in an HTTP response. */
  readonly status?: number;

  constructor(fields: OAuthErrorFields, status?: number) {
    super(formatOAuthError(fields));
    this.name = 'OAuthError';
    this.error = fields.error;
    if (fields.error_description !== undefined) this.error_description = fields.error_description;
    if (fields.error_uri !== undefined) this.error_uri = fields.error_uri;
    if (status !== undefined) this.status = status;
  }

  toJSON(): OAuthErrorFields {
    const out: OAuthErrorFields = { error: this.error };
    if (this.error_description !== undefined) out.error_description = this.error_description;
    if (this.error_uri !== undefined) out.error_uri = this.error_uri;
    return out;
  }
}

/** One line: `error: description (see uri)`. */
export function formatOAuthError(fields: OAuthErrorFields): string {
  let line = fields.error;
  if (fields.error_description) line += `: ${fields.error_description}`;
  if (fields.error_uri) line += ` (see ${fields.error_uri})`;
  return line;
}

/** Reads RFC 6749 section 5.2 fields out of a parsed JSON body, or undefined when it is not an error object. */
export function parseOAuthErrorBody(body: unknown): OAuthErrorFields | undefined {
  if (!body || typeof body !== 'object') return undefined;
  const o = body as Record<string, unknown>;
  if (typeof o.error !== 'string' || o.error === '') return undefined;
  const out: OAuthErrorFields = { error: o.error };
  if (typeof o.error_description === 'string') out.error_description = o.error_description;
  if (typeof o.error_uri === 'string') out.error_uri = o.error_uri;
  return out;
}
