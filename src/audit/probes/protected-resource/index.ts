import type { AuditProbe } from '../../types.js';
import { resourceChallengeProbe } from './resource-challenge.js';
import { resourceMetadataMatchProbe } from './resource-metadata-match.js';
import { resourceMetadataLocationProbe } from './resource-metadata-location.js';
import { resourceServersProbe } from './resource-servers.js';
import { resourceAudienceProbe } from './resource-audience.js';
import { resourceInsufficientScopeProbe } from './resource-insufficient-scope.js';
import { resourceQueryTokenProbe } from './resource-query-token.js';
import { resourceRevokedTokenProbe } from './resource-revoked-token.js';
import { resourceExpiredTokenProbe } from './resource-expired-token.js';
import { resourceGarbageTokenProbe } from './resource-garbage-token.js';
import { resourceForeignKeyProbe } from './resource-foreign-key.js';
import { resourceAlgNoneProbe } from './resource-alg-none.js';
import { resourceOtherIssuerProbe } from './resource-other-issuer.js';
import { resourceFormTokenProbe } from './resource-form-token.js';
import { resourceNotYetValidProbe } from './resource-not-yet-valid.js';
import { RESOURCE_DPOP_PROBES } from './resource-dpop.js';

/** The resource server (audit --protected-resource URL only): its challenges (RFC 6750, RFC 9728) and the tokens it takes. */
export const PROTECTED_RESOURCE_PROBES: readonly AuditProbe[] = [
  resourceChallengeProbe,
  resourceMetadataMatchProbe,
  resourceMetadataLocationProbe,
  resourceServersProbe,
  resourceGarbageTokenProbe,
  resourceForeignKeyProbe,
  resourceAlgNoneProbe,
  resourceOtherIssuerProbe,
  resourceAudienceProbe,
  resourceInsufficientScopeProbe,
  resourceQueryTokenProbe,
  resourceFormTokenProbe,
  resourceRevokedTokenProbe,
  resourceExpiredTokenProbe,
  resourceNotYetValidProbe,
  ...RESOURCE_DPOP_PROBES,
];
