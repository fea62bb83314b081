import type { AuditProbe } from '../../types.js';
import { idTokenProbe } from './id-token.js';
import { idTokenAlgAnnouncedProbe } from './id-token-alg-announced.js';
import { idTokenKidKnownProbe } from './id-token-kid-known.js';
import { idTokenLifetimeProbe } from './id-token-lifetime.js';
import { idTokenRefreshProbe } from './id-token-refresh.js';
import { idTokenSubStableProbe } from './id-token-sub-stable.js';

/** ID tokens (OpenID Connect Core 3.1.3.7): signature and claims, algorithm, key, lifetime, a stable sub, refresh. */
export const ID_TOKEN_PROBES: readonly AuditProbe[] = [idTokenProbe, idTokenAlgAnnouncedProbe, idTokenKidKnownProbe, idTokenLifetimeProbe, idTokenSubStableProbe, idTokenRefreshProbe];
