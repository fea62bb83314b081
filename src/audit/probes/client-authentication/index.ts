import type { AuditProbe } from '../../types.js';
import { clientSecretWrongProbe } from './client-secret-wrong.js';
import { clientAssertionReplayProbe } from './client-assertion-replay.js';
import { clientAssertionAudienceProbe } from './client-assertion-audience.js';

/** Client authentication (RFC 6749 section 2.3): wrong secrets, and client assertions (RFC 7523) replayed or for another server. */
export const CLIENT_AUTHENTICATION_PROBES: readonly AuditProbe[] = [clientSecretWrongProbe, clientAssertionReplayProbe, clientAssertionAudienceProbe];
