import type { AuditProbe } from '../../types.js';
import { revocationAccessTokenProbe } from './revocation-access-token.js';
import { revocationOtherClientProbe } from './revocation-other-client.js';
import { revocationRefreshTokenProbe } from './revocation-refresh-token.js';
import { revocationUnauthenticatedProbe } from './revocation-unauthenticated.js';
import { revocationUnknownTokenProbe } from './revocation-unknown-token.js';

/** Revocation (RFC 7009). */
export const REVOCATION_PROBES: readonly AuditProbe[] = [
  revocationAccessTokenProbe,
  revocationRefreshTokenProbe,
  revocationUnknownTokenProbe,
  revocationOtherClientProbe,
  revocationUnauthenticatedProbe,
];
