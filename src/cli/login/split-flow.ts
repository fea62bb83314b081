import { FlowError, UsageError } from '../../errors.js';
import { readFileIfExists, writeFileAtomic } from '../../store/atomic-file.js';
import type { DpopSession } from '../../client/flows/dpop.js';
import type { FlowConfig } from '../../client/flows/flow-config.js';
import type { HttpClient } from '../../client/http/http.js';
import type { RedirectCapture } from '../../client/listeners/listener.js';
import { captureFromPastedUrl } from '../../agent/paste-redirect.js';
import type { Renderer } from '../../output/render.js';
import { AuthorizationResponseError, validateAuthorizationResponse } from '../../oauth/authorization-response.js';
import { explainOAuthError, OAuthError } from '../../oauth/errors.js';
import type { FlowOptionsInput } from '../options/flow-options.js';

/**
 * The split flow: `url --save FILE` keeps what the second half needs (state, code verifier, redirect
 * URI, endpoints, client id, the DPoP key; never a client secret) in a 0600 file; `exchange --from FILE
 * --redirect-uri URL` checks the redirect against it and exchanges the code, on this machine or another.
 */
export interface SavedFlow {
  oauthctl_saved_flow: 1;
  created_at: string;
  authorization_url: string;
  state: string;
  redirect_uri: string;
  authorization_endpoint: string;
  token_endpoint: string;
  issuer?: string;
  /** --auth-url as given: its metadata names the ID token's keys when no issuer does. */
  auth_url?: string;
  /** --jwks-uri as given. */
  jwks_uri?: string;
  /** The metadata says the server sends iss in the redirect (RFC 9207). */
  iss_required?: boolean;
  client_id: string;
  auth_method: string;
  scope: string;
  nonce?: string;
  code_verifier?: string;
  code_challenge_method?: string;
  /** The DPoP key (private JWK) whose thumbprint the request sent as dpop_jkt (RFC 9449 section 10): the token request must prove it. */
  dpop_jwk?: Record<string, unknown>;
  /** --response-mode: the redirect carries a response JWT (JARM), verified before the code in it is used. */
  response_mode?: string;
  /** --authorization-details (RFC 9396), asked for again at the token endpoint (section 6.1). */
  authorization_details?: unknown[];
}

export async function saveFlow(file: string, config: FlowConfig, authorizationUrl: string, now: Date = new Date()): Promise<SavedFlow> {
  const saved: SavedFlow = {
    oauthctl_saved_flow: 1,
    created_at: now.toISOString(),
    authorization_url: authorizationUrl,
    state: config.state,
    redirect_uri: config.redirectUri,
    authorization_endpoint: config.authorizationEndpoint,
    token_endpoint: config.tokenEndpoint,
    client_id: config.clientId,
    auth_method: config.authMethod,
    scope: config.scopes.join(' '),
  };
  if (config.issuer !== undefined) saved.issuer = config.issuer;
  if (config.authUrl !== undefined) saved.auth_url = config.authUrl;
  if (config.endpoints.jwks_uri !== undefined) saved.jwks_uri = config.endpoints.jwks_uri;
  if (config.metadata?.authorization_response_iss_parameter_supported === true) saved.iss_required = true;
  if (config.extraParams.nonce !== undefined) saved.nonce = config.extraParams.nonce;
  if (config.pkce) {
    saved.code_verifier = config.pkce.codeVerifier;
    saved.code_challenge_method = config.pkce.codeChallengeMethod;
  }
  if (config.responseMode !== undefined) {
    saved.response_mode = config.responseMode;
    // The keys the response JWT is verified with, as this half found them (JARM section 2.4).
    const { jarmJwksUri } = await import('../../client/responses/jarm.js');
    saved.jwks_uri ??= jarmJwksUri(config);
  }
  if (config.authorizationDetails !== undefined) saved.authorization_details = config.authorizationDetails;
  if (config.dpop) saved.dpop_jwk = (await import('../../client/flows/keys.js')).exportDpopKey(config.dpop.key) as Record<string, unknown>;
  await writeFileAtomic(file, `${JSON.stringify(saved, null, 2)}\n`, { mode: 0o600 });
  return saved;
}

export async function loadSavedFlow(file: string): Promise<SavedFlow> {
  let text: string | undefined;
  try {
    text = await readFileIfExists(file);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`);
  }
  if (text === undefined) throw new UsageError(`${file} does not exist`, 'create it with `oauthctl url --save FILE ...`');
  let saved: unknown;
  try {
    saved = JSON.parse(text);
  } catch {
    saved = undefined;
  }
  const o = saved as Partial<SavedFlow> | undefined;
  if (!o || o.oauthctl_saved_flow !== 1 || typeof o.state !== 'string' || typeof o.redirect_uri !== 'string' || typeof o.token_endpoint !== 'string' || typeof o.client_id !== 'string') {
    throw new UsageError(`${file} is not a flow saved by \`oauthctl url --save\``, 'save one with `oauthctl url --save FILE ...`');
  }
  return o as SavedFlow;
}

/**
 * The exchange's options from the saved request and the URL the browser was sent to (flags given on
 * the command line win). Without JARM the redirect is checked here, state first (a mismatch sends no
 * token request), then an error, then iss, and its code is in the options; with JARM the code is
 * inside a response JWT that needs the server's keys: `pending` holds the redirect for
 * `codeFromResponseJwt`, once the configuration is resolved.
 */
export function exchangeOptionsFromSavedFlow<T extends FlowOptionsInput & { code?: string | undefined }>(options: T, saved: SavedFlow, redirectUrl: string): { options: T; pending?: RedirectCapture } {
  const capture = captureFromPastedUrl(redirectUrl, saved.redirect_uri);
  const pending = saved.response_mode !== undefined ? capture : undefined;
  const fromFile: FlowOptionsInput & { code?: string } = {
    code: pending ? undefined : codeOfRedirect(capture.params, saved),
    authorizationEndpoint: saved.authorization_endpoint || undefined,
    tokenEndpoint: saved.token_endpoint,
    issuer: saved.issuer,
    authUrl: saved.auth_url,
    jwksUri: saved.jwks_uri,
    clientId: saved.client_id,
    authMethod: saved.auth_method,
    redirectUri: saved.redirect_uri,
    codeVerifier: saved.code_verifier,
    codeChallengeMethod: saved.code_verifier !== undefined ? saved.code_challenge_method : undefined,
    responseMode: saved.response_mode,
    authorizationDetails: saved.authorization_details !== undefined ? JSON.stringify(saved.authorization_details) : undefined,
  };
  const out: Record<string, unknown> = { ...(options as Record<string, unknown>) };
  for (const [key, value] of Object.entries(fromFile)) if (out[key] === undefined) out[key] = value;
  return { options: out as T, ...(pending && { pending }) };
}

/** The code of a redirect saved with --response-mode: the response JWT verified (JARM section 2.4), then checked as any redirect. */
export async function codeFromResponseJwt(http: HttpClient, config: FlowConfig, capture: RedirectCapture, saved: SavedFlow, renderer: Renderer): Promise<string> {
  const { authorizationResponseParams } = await import('../../client/responses/jarm.js');
  return codeOfRedirect(await authorizationResponseParams(http, config, capture, renderer), saved);
}

/** The code of an authorization response, checked against the saved request: state, then an error, then iss. */
function codeOfRedirect(params: Record<string, string>, saved: SavedFlow): string {
  try {
    return validateAuthorizationResponse(params, { state: saved.state, issuer: saved.issuer, issRequired: saved.iss_required }).code;
  } catch (err) {
    if (err instanceof OAuthError) {
      throw new FlowError(`the authorization server answered ${err.message}`, explainOAuthError(err.error) ?? 'see the authorization server for details');
    }
    if (err instanceof AuthorizationResponseError) {
      throw new FlowError(
        err.message,
        err.code.startsWith('state')
          ? 'no token request was sent: this redirect does not belong to the saved request (CSRF, RFC 6749 section 10.12)'
          : 'no token request was sent (RFC 9207 mix-up protection)',
      );
    }
    throw err;
  }
}

/** The DPoP session of a saved request: the key its dpop_jkt named, so that the code is exchanged with proofs of it. */
export async function dpopSessionOfSavedFlow(saved: SavedFlow): Promise<DpopSession | undefined> {
  if (saved.dpop_jwk === undefined) return undefined;
  const [{ importDpopKey }, { DpopSession }] = await Promise.all([import('../../client/flows/keys.js'), import('../../client/flows/dpop.js')]);
  try {
    return new DpopSession(await importDpopKey(saved.dpop_jwk));
  } catch {
    throw new UsageError('the saved request holds a DPoP key that cannot be read', 'save the request again with `oauthctl url --dpop --save FILE ...`');
  }
}
