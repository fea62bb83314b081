import type { AuditProbe } from '../types.js';
import { AUTHORIZATION_ENDPOINT_PROBES } from './authorization-endpoint/index.js';
import { TOKEN_ENDPOINT_PROBES } from './token-endpoint/index.js';
import { PKCE_PROBES } from './pkce/index.js';
import { ID_TOKEN_PROBES } from './id-token/index.js';
import { METADATA_PROBES } from './metadata/index.js';
import { TOKEN_PROBES } from './tokens/index.js';
import { JWT_PROBES } from './jwt/index.js';
import { DPOP_PROBES } from './dpop/index.js';
import { PAR_PROBES } from './par/index.js';
import { DEVICE_PROBES } from './device/index.js';
import { CIBA_PROBES } from './ciba/index.js';
import { REVOCATION_PROBES } from './revocation/index.js';
import { INTROSPECTION_PROBES } from './introspection/index.js';
import { CONCURRENCY_PROBES } from './concurrency/index.js';
import { TLS_PROBES } from './tls/index.js';
import { MCP_PROBES } from './mcp/index.js';
import { CLIENT_AUTHENTICATION_PROBES } from './client-authentication/index.js';
import { SESSIONS_PROBES } from './sessions/index.js';
import { PROTECTED_RESOURCE_PROBES } from './protected-resource/index.js';

/** Every category's probes: one folder each, whose index.ts lists them. A new category is one line here. */
const CATEGORIES: readonly (readonly AuditProbe[])[] = [
  AUTHORIZATION_ENDPOINT_PROBES,
  TOKEN_ENDPOINT_PROBES,
  PKCE_PROBES,
  ID_TOKEN_PROBES,
  METADATA_PROBES,
  TOKEN_PROBES,
  JWT_PROBES,
  DPOP_PROBES,
  PAR_PROBES,
  DEVICE_PROBES,
  CIBA_PROBES,
  REVOCATION_PROBES,
  INTROSPECTION_PROBES,
  CONCURRENCY_PROBES,
  TLS_PROBES,
  MCP_PROBES,
  CLIENT_AUTHENTICATION_PROBES,
  SESSIONS_PROBES,
  PROTECTED_RESOURCE_PROBES,
];

/**
 * The probes that run first, in this order, whatever their category: the plain flow that the others
 * build on, then the checks of one login's path (authorization, token, refresh, metadata, the
 * resource server), then those that read what the others saw (https-endpoints, tls, token-no-store,
 * error-format). Every other probe follows, category by category, in its folder's order.
 */
export const RUN_FIRST: readonly string[] = [
  'flow',
  'state',
  'iss',
  'code-single-use',
  'code-redirect-binding',
  'code-client-binding',
  'pkce-required',
  'pkce-wrong-verifier',
  'pkce-downgrade',
  'pkce-plain',
  'redirect-uri-exact',
  'open-redirector',
  'client-secret-wrong',
  'implicit-refused',
  'refresh-rotation',
  'id-token',
  'token-post-only',
  'repeated-params',
  'unknown-params',
  'framing',
  'metadata',
  'jwks',
  'par-required',
  'par-single-use',
  'par-client-binding',
  'par-expiry',
  'dpop-replay',
  'dpop-htm-htu',
  'dpop-bound-as-bearer',
  'client-assertion-replay',
  'client-assertion-audience',
  'client-assertion-expired',
  'jar-unsigned',
  'client-credentials-public',
  'device-code-single-use',
  'post-logout-redirect-exact',
  'prompt-none-login-required',
  'max-age-reauth',
  'id-token-hint-other-user',
  'device-slow-down',
  'device-unknown-user-code',
  'resource-401-metadata',
  'resource-metadata-match',
  'resource-authorization-servers',
  'resource-garbage-token',
  'resource-foreign-key',
  'resource-alg-none',
  'resource-other-issuer',
  'resource-audience',
  'resource-insufficient-scope',
  'resource-query-token',
  'resource-form-token',
  'resource-revoked-token',
  'resource-expired-token',
  'https-endpoints',
  'tls',
  'token-no-store',
  'error-format',
  'token-exchange-type',
];

/** Every probe, in the order they run and are reported. */
export const PROBES: readonly AuditProbe[] = inRunOrder(CATEGORIES.flat());

function inRunOrder(probes: readonly AuditProbe[]): AuditProbe[] {
  const byId = new Map(probes.map((p) => [p.id, p]));
  const first = RUN_FIRST.map((id) => {
    const probe = byId.get(id);
    if (!probe) throw new Error(`RUN_FIRST names ${id}, which no category lists`);
    return probe;
  });
  const ranked = new Set(RUN_FIRST);
  return [...first, ...probes.filter((p) => !ranked.has(p.id))];
}
