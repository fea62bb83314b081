import { createLocalJWKSet, createRemoteJWKSet, decodeJwt, jwtVerify, type JWTVerifyGetKey } from 'jose';
import { ID_JAG_TYP } from '../../oauth/grant-types.js';
import { parseScope } from '../../oauth/scope.js';
import type { MockClient } from '../core/config/config.js';
import { q, sendOAuthError, type Exchange, type MockState } from '../core/http/http.js';
import { ReplayCache } from '../core/store/replay.js';
import { knownResources } from '../core/tokens/resources.js';
import { sendServiceToken } from '../core/tokens/service-token.js';
import type { TokenBinding } from '../core/tokens/token-binding.js';
import type { IdentityProvider } from '../mcp/config.js';
import { handleWorkloadAssertion, workloadIssuerOf } from './token-workload.js';

/** ID-JAG ids remembered until they expire, per issuer: a replayed one is refused (RFC 7523 section 3, item 7). */
const MAX_REMEMBERED = 10_000;
const seen = new WeakMap<object, ReplayCache>();
const remoteKeys = new WeakMap<object, JWTVerifyGetKey>();

function replayCacheOf(state: MockState): ReplayCache {
  let cache = seen.get(state.config);
  if (!cache) seen.set(state.config, (cache = new ReplayCache(MAX_REMEMBERED, () => state.now())));
  return cache;
}

/** The identity provider's issuer and keys: a named issuer of this server, or the configured keys (inline, or fetched from jwks_uri). */
async function keysOf(state: MockState, idp: IdentityProvider): Promise<{ issuer: string; keys: JWTVerifyGetKey } | undefined> {
  if (idp.named) {
    const named = (state.server?.root ?? state).server?.named.get(idp.issuer);
    return named && { issuer: named.issuer, keys: createLocalJWKSet((await named.keys()).jwks) };
  }
  if (idp.jwks) return { issuer: idp.issuer, keys: createLocalJWKSet(idp.jwks as Parameters<typeof createLocalJWKSet>[0]) };
  let remote = remoteKeys.get(idp);
  if (!remote) remoteKeys.set(idp, (remote = createRemoteJWKSet(new URL(idp.jwksUri!), { timeoutDuration: 3000 })));
  return { issuer: idp.issuer, keys: remote };
}

/** The assertion's `iss`, unverified: only to choose whose keys check it. */
function peekIssuer(assertion: string): unknown {
  try {
    return decodeJwt(assertion).iss;
  } catch {
    return undefined;
  }
}

/** The trusted identity provider that issued this assertion (its `iss`, read before the signature is checked). */
async function issuerOf(state: MockState, assertion: string): Promise<{ issuer: string; keys: JWTVerifyGetKey } | undefined> {
  let iss: unknown;
  try {
    iss = decodeJwt(assertion).iss;
  } catch {
    return undefined;
  }
  for (const idp of state.config.mcp.identityProviders) {
    const found = await keysOf(state, idp);
    if (found && found.issuer === iss) return found;
  }
  return undefined;
}

/**
 * grant_type=urn:ietf:params:oauth:grant-type:jwt-bearer (RFC 7523 section 2.1) with an ID-JAG
 * (Identity Assertion JWT Authorization Grant, draft section 5): from an identity provider the
 * configuration trusts (mcp.identity_providers), signed by its keys, `typ: oauth-id-jag+jwt`, for this
 * server (`aud` its issuer), unexpired, for the authenticated client (`client_id`), never seen before
 * (`jti`). The access token is for the ID-JAG's `resource` (a resource this server knows) with its
 * `scope`; no refresh token (draft section 5.2).
 */
export async function handleJwtBearerGrant(ex: Exchange, client: MockClient, values: Map<string, string>, binding: TokenBinding): Promise<void> {
  const assertion = values.get('assertion');
  if (!assertion) return sendOAuthError(ex, 400, 'invalid_request', 'assertion is required (RFC 7523 section 2.1)');
  const { state } = ex;
  // A workload's own JWT (workload identity federation), from an issuer of config workload_issuers.
  const workload = await workloadIssuerOf(state, peekIssuer(assertion));
  if (workload) return handleWorkloadAssertion(ex, client, values, binding, assertion, workload);
  const idp = await issuerOf(state, assertion);
  if (!idp) {
    const iss = peekIssuer(assertion);
    return sendOAuthError(
      ex,
      400,
      'invalid_grant',
      `the assertion's issuer ${typeof iss === 'string' ? q(iss) : '(none)'} is not trusted: list a workload's issuer under "workload_issuers", an ID-JAG's under "mcp.identity_providers" in the mock's --config (RFC 7523 section 3)`,
    );
  }
  let claims: Record<string, unknown>;
  try {
    ({ payload: claims } = await jwtVerify(assertion, idp.keys, {
      issuer: idp.issuer,
      audience: state.issuer,
      typ: ID_JAG_TYP,
      currentDate: new Date(state.now()),
      requiredClaims: ['sub', 'exp', 'iat', 'jti', 'client_id'],
    }));
  } catch (err) {
    return sendOAuthError(ex, 400, 'invalid_grant', `the ID-JAG is refused: ${err instanceof Error ? err.message : 'invalid'} (RFC 7523 section 3)`);
  }
  if (claims.client_id !== client.clientId) return sendOAuthError(ex, 400, 'invalid_grant', `the ID-JAG is for client ${q(String(claims.client_id))}, not ${client.clientId} (draft section 5.1)`);
  const resource = typeof claims.resource === 'string' ? claims.resource : undefined;
  if (resource !== undefined && !knownResources(state).includes(resource)) return sendOAuthError(ex, 400, 'invalid_target', `the ID-JAG's resource ${q(resource)} is not a resource this server knows`);
  const asked = values.get('resource');
  if (asked !== undefined && asked !== resource) return sendOAuthError(ex, 400, 'invalid_target', `resource ${q(asked)} is not the ID-JAG's (${resource ?? 'none'})`);
  const scopes = parseScope(typeof claims.scope === 'string' ? claims.scope : '');
  const unknown = scopes.filter((s) => !state.config.scopes.has(s));
  if (unknown.length > 0) return sendOAuthError(ex, 400, 'invalid_scope', `the ID-JAG asks for unknown scope ${unknown.map(q).join(', ')}`);
  // Checked last, so that a refused ID-JAG is not spent.
  const use = replayCacheOf(state).use(`${idp.issuer} ${String(claims.jti)}`, Number(claims.exp) * 1000);
  if (use === 'replayed') return sendOAuthError(ex, 400, 'invalid_grant', 'this ID-JAG was used before (its jti): an assertion is used once (RFC 7523 section 3)');
  if (use === 'busy') return sendOAuthError(ex, 503, 'temporarily_unavailable', 'too many live ID-JAGs are remembered; try again later');
  await sendServiceToken(ex, client, { sub: String(claims.sub), scopes, ...(resource !== undefined ? { aud: resource } : {}), binding });
}
