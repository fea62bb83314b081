import type { AuditProbe } from '../../types.js';
import { resourceChallengeProbe } from './resource-challenge.js';
import { resourceMetadataMatchProbe } from './resource-metadata-match.js';
import { resourceServersProbe } from './resource-servers.js';
import { resourceAudienceProbe } from './resource-audience.js';
import { resourceInsufficientScopeProbe } from './resource-insufficient-scope.js';
import { resourceQueryTokenProbe } from './resource-query-token.js';
import { resourceRevokedTokenProbe } from './resource-revoked-token.js';
import { resourceExpiredTokenProbe } from './resource-expired-token.js';

/** The resource server (audit --protected-resource URL only): its challenges (RFC 6750, RFC 9728) and the tokens it takes. */
export const PROTECTED_RESOURCE_PROBES: readonly AuditProbe[] = [
  resourceChallengeProbe,
  resourceMetadataMatchProbe,
  resourceServersProbe,
  resourceAudienceProbe,
  resourceInsufficientScopeProbe,
  resourceQueryTokenProbe,
  resourceRevokedTokenProbe,
  resourceExpiredTokenProbe,
];
