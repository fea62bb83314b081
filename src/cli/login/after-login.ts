import { CliError, FlowError } from '../../errors.js';
import type { FlowConfig } from '../../client/flows/flow-config.js';
import type { HttpClient } from '../../client/http/http.js';
import { selectedProfileName } from '../../store/config-store.js';
import { decodeJwtUnverified } from '../../oauth/jwt.js';
import type { JwtCheck } from '../../oauth/jwt-claims.js';
import type { TokenResponse } from '../../oauth/token-request.js';
import type { Renderer } from '../../output/render.js';
import type { IO } from '../../output/io.js';

/** What `login` (and `exchange --from`) do once the token response is in: check the ID token, cache the tokens. */
export interface AfterLoginInput {
  config: FlowConfig;
  tokens: TokenResponse;
  http: HttpClient;
  renderer: Renderer;
  io: IO;
  /** --profile, else OAUTHCTL_PROFILE. */
  profile?: string | undefined;
  /** false with --no-cache. */
  cache?: boolean | undefined;
  /** --token-store; else OAUTHCTL_TOKEN_STORE, else the profile's token_store, else file. */
  tokenStore?: string | undefined;
  /** The nonce the authorization request carried; default the config's. */
  nonce?: string | undefined;
  /** The grant, when not a user's login: `client_credentials` (cached so that `token` asks anew instead of refreshing). */
  grant?: string | undefined;
}

export async function afterLogin(input: AfterLoginInput): Promise<void> {
  await checkIdToken(input);
  if (input.cache !== false) await cacheTokens(input);
}

/**
 * OpenID Connect Core section 3.1.3.7: a client validates the ID token before using it: signature with
 * the issuer's keys, iss, aud, exp, iat and the nonce it sent. Each check is reported; any failure
 * fails the login (exit 1), and nothing is cached. The keys come only from a source the user named
 * (--jwks-uri, or the metadata of --issuer or --auth-url), never from the token's own unverified iss.
 */
export async function checkIdToken({ config, tokens, http, renderer, nonce }: AfterLoginInput): Promise<JwtCheck[] | undefined> {
  const idToken = tokens.id_token;
  if (typeof idToken !== 'string') {
    if (config.scopes.includes('openid')) renderer.warn('openid was in the scope, but the token response has no id_token (OpenID Connect Core section 3.1.3.3)');
    return undefined;
  }
  renderer.step('ID token validation');
  const decoded = decodeJwtUnverified(idToken);
  if (!decoded) throw new FlowError('the id_token is not a JWT', 'OpenID Connect Core section 2: an ID token is a signed JWT');
  const [{ endpointOf }, { checkIdTokenSignature }, { checkClaims }] = await Promise.all([
    import('../../client/flows/endpoints.js'),
    import('../../client/responses/id-token-keys.js'),
    import('../../oauth/jwt-claims.js'),
  ]);
  const jwksUri = await endpointOf(http, config, 'jwks_uri');
  // The issuer the user named, or the one the metadata of --auth-url declares (checked against that URL).
  const issuer = config.issuer ?? config.metadata?.issuer;
  const signature = await checkIdTokenSignature(http, idToken, jwksUri, { acceptUnverified: config.acceptUnverifiedIdToken === true });
  if (signature.status === 'skip') {
    renderer.warn(`the ID token's signature is NOT verified (--no-verify-id-token): ${signature.detail}. Anyone could have made this token; do not rely on its claims.`);
  }
  const checks = [signature, ...checkClaims(decoded.claims, { issuer, audience: config.clientId, nonce: nonce ?? config.extraParams.nonce, nowMs: Date.now(), idToken: true })];
  // FAPI 2.0 Security Profile section 5.4.1: under --fapi2 an ID token signed otherwise than PS256, ES256 or EdDSA is refused.
  const refusal = config.fapi2 === true ? (await import('../../oauth/fapi2.js')).fapi2AlgRefusal('the ID token', decoded.header.alg) : undefined;
  if (refusal !== undefined) checks.unshift({ name: 'signature', status: 'fail', detail: refusal });
  for (const check of checks) {
    const line = `${check.name}: ${check.detail}`;
    if (check.status === 'pass') renderer.ok(line);
    else if (check.status === 'fail') renderer.info(`✗ ${line}`, 'red');
    else renderer.info(`- ${line}`);
  }
  const failed = checks.filter((c) => c.status === 'fail');
  if (failed.length > 0) {
    const unverifiable = signature.status === 'fail' && signature.unverifiable === true;
    throw new FlowError(
      `the ID token failed validation (${failed.map((c) => c.name).join(', ')}): ${failed[0]!.detail}`,
      unverifiable
        ? 'name its keys with --issuer URL or --jwks-uri URL, or accept it unverified with --no-verify-id-token; nothing was cached'
        : 'a client must not use it (OpenID Connect Core section 3.1.3.7); see the checks above; nothing was cached',
    );
  }
  return checks;
}

/** Keeps the tokens for `token`, `status`, `call` and `logout`, per profile or per issuer and client. */
export async function cacheTokens({ config, tokens, renderer, io, profile, grant, tokenStore }: AfterLoginInput): Promise<void> {
  const [{ openTokenCache, saveTokens, cacheFilePath }, { chooseTokenStore }, { loadSelectedProfile }] = await Promise.all([
    import('../../store/token-cache.js'),
    import('../../store/secret-store.js'),
    import('../../store/config-store.js'),
  ]);
  let name = selectedProfileName(profile, io.env);
  const selection = name !== undefined ? await loadSelectedProfile({ profile: name }, io.env).catch(() => undefined) : undefined;
  const store = chooseTokenStore(tokenStore, io.env, selection?.profile.token_store);
  if (name !== undefined && !(await profileNamesThisLogin(name, config, io))) {
    renderer.info(`the flags name another server or client than profile ${name}: the tokens are cached for ${config.clientId} at that server, not under the profile`);
    name = undefined;
  }
  const key =
    name !== undefined
      ? { profile: name }
      : config.protectedResource !== undefined
        ? { resource: config.protectedResource }
        : { issuer: config.issuer, tokenEndpoint: config.tokenEndpoint, clientId: config.clientId };
  const cache = openTokenCache(io.env, { store });
  try {
    await saveTokens(cache, key, tokens, {
      issuer: config.issuer,
      tokenEndpoint: config.tokenEndpoint,
      revocationEndpoint: config.metadata?.revocation_endpoint,
      clientId: config.clientId,
      authMethod: config.authMethod,
      grant,
      resource: config.protectedResource,
      clientKeys: await (await import('../../client/cache/cached-client-keys.js')).clientKeysOf(config),
    });
    if (store === 'none') {
      renderer.info('Tokens not kept (token store none)');
      return;
    }
    const selector = name !== undefined ? ` --profile ${name}` : config.protectedResource !== undefined ? ` --protected-resource ${config.protectedResource}` : '';
    const where = store === 'keyring' ? `the OS keyring (the rest in ${cacheFilePath(cache, key)})` : cacheFilePath(cache, key);
    renderer.info(`Tokens cached in ${where}; \`oauthctl token${selector}\` prints a valid access token`);
  } catch (err) {
    // A login whose tokens cannot be kept where asked has failed: a credential helper would log in
    // again on every call. Said in one line, -q or not (exit 1; an untrusted directory is exit 2).
    if (err instanceof CliError) throw err;
    throw new FlowError(`the login worked, but its tokens could not be kept: ${(err as Error).message}`, 'check the token cache directory, or use --token-store');
  }
}

/** A profile caches only tokens of its own server and client, however the server is named (serverOf). */
async function profileNamesThisLogin(name: string, config: FlowConfig, io: IO): Promise<boolean> {
  const [{ loadSelectedProfile }, { serverOf }] = await Promise.all([import('../../store/config-store.js'), import('../../store/token-cache.js')]);
  const selection = await loadSelectedProfile({ profile: name }, io.env).catch(() => undefined);
  if (!selection) return true;
  const p = selection.profile;
  const profileServer = serverOf({ issuer: p.issuer ?? p.auth_url?.replace(/\/+$/, ''), tokenEndpoint: p.token_endpoint });
  const sameServer = profileServer === undefined || profileServer === serverOf(config);
  return sameServer && (p.client_id === undefined || p.client_id === config.clientId);
}
