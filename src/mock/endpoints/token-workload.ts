import { createLocalJWKSet, createRemoteJWKSet, jwtVerify, type JWTVerifyGetKey } from 'jose';
import type { MockClient } from '../core/config/config.js';
import type { WorkloadIssuer } from '../core/config/config-workload.js';
import { q, sendOAuthError, type Exchange, type MockState } from '../core/http/http.js';
import { ReplayCache } from '../core/store/replay.js';
import { requestedResources } from '../core/tokens/resources.js';
import { checkRequestedScope } from '../core/tokens/scope-check.js';
import { sendServiceToken } from '../core/tokens/service-token.js';
import type { TokenBinding } from '../core/tokens/token-binding.js';

const MAX_REMEMBERED = 10_000;
const seen = new WeakMap<object, ReplayCache>();
const remoteKeys = new WeakMap<object, JWTVerifyGetKey>();

function keysOf(issuer: WorkloadIssuer): JWTVerifyGetKey {
  if (issuer.jwks) return createLocalJWKSet(issuer.jwks as Parameters<typeof createLocalJWKSet>[0]);
  let remote = remoteKeys.get(issuer);
  if (!remote) remoteKeys.set(issuer, (remote = createRemoteJWKSet(new URL(issuer.jwksUri!), { timeoutDuration: 3000 })));
  return remote;
}

function replayCacheOf(state: MockState): ReplayCache {
  let cache = seen.get(state.config);
  if (!cache) seen.set(state.config, (cache = new ReplayCache(MAX_REMEMBERED, () => state.now())));
  return cache;
}

/**
 * The trusted workload issuer named by the assertion's `iss` (read before the signature is checked):
 * an issuer URL with its keys, or a named issuer of this server (config issuers), signing with its own.
 */
export async function workloadIssuerOf(state: MockState, iss: unknown): Promise<WorkloadIssuer | undefined> {
  if (typeof iss !== 'string') return undefined;
  const root = state.server?.root ?? state;
  for (const w of state.config.workloadIssuers) {
    const named = root.server?.named.get(w.issuer);
    if (named !== undefined && named.issuer === iss) return { issuer: named.issuer, jwks: (await named.keys()).jwks as { keys: Record<string, unknown>[] } };
    if (w.issuer === iss) return w;
  }
  return undefined;
}

/**
 * The JWT bearer grant with a workload's JWT (RFC 7523 section 2.1; section 3's rules): signed by a
 * trusted workload issuer's keys (config workload_issuers), `aud` this server's issuer or its token
 * endpoint (section 3, item 3), unexpired, `sub` the workload; a `jti` is accepted once. The token is
 * for the client that presented it, its subject the workload, with the scope and resource asked
 * (absent scope: the client's default_scopes). No refresh token (the workload asks again).
 */
export async function handleWorkloadAssertion(ex: Exchange, client: MockClient, values: Map<string, string>, binding: TokenBinding, assertion: string, issuer: WorkloadIssuer): Promise<void> {
  const { state } = ex;
  let claims: Record<string, unknown>;
  try {
    ({ payload: claims } = await jwtVerify(assertion, keysOf(issuer), {
      issuer: issuer.issuer,
      audience: [state.issuer, `${state.issuer}/token`],
      currentDate: new Date(state.now()),
      requiredClaims: ['sub', 'exp'],
    }));
  } catch (err) {
    return sendOAuthError(ex, 400, 'invalid_grant', `the assertion is refused: ${err instanceof Error ? err.message : 'invalid'} (RFC 7523 section 3)`);
  }
  const scopes = checkRequestedScope(ex, client, values.get('scope'), client.defaultScopes);
  if (!scopes) return;
  const resources = requestedResources(values, state);
  if (!resources.ok) return sendOAuthError(ex, 400, 'invalid_target', resources.description);
  if (resources.resources.length > 1) return sendOAuthError(ex, 400, 'invalid_target', 'ask for one resource at a time with the JWT bearer grant');
  if (typeof claims.jti === 'string') {
    // Checked last, so that a refused assertion is not spent (RFC 7523 section 3, item 7).
    const use = replayCacheOf(state).use(`${issuer.issuer} ${claims.jti}`, Number(claims.exp) * 1000);
    if (use === 'replayed') return sendOAuthError(ex, 400, 'invalid_grant', `this assertion (jti ${q(claims.jti)}) was used before: an assertion is used once (RFC 7523 section 3)`);
    if (use === 'busy') return sendOAuthError(ex, 503, 'temporarily_unavailable', 'too many live assertions are remembered; try again later');
  }
  const [aud] = resources.resources;
  await sendServiceToken(ex, client, { sub: String(claims.sub), scopes, binding, ...(aud !== undefined ? { aud } : {}) });
}
