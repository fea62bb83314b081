import type { AuditProbe } from '../../types.js';
import { tlsCookieSecureProbe } from './tls-cookie-secure.js';
import { tlsForwardSecrecyProbe } from './tls-forward-secrecy.js';
import { tlsHstsMaxAgeProbe } from './tls-hsts-max-age.js';

/** TLS beyond the first rounds: HSTS lifetime, cookies, forward secrecy. */
export const TLS_PROBES: readonly AuditProbe[] = [tlsHstsMaxAgeProbe, tlsCookieSecureProbe, tlsForwardSecrecyProbe];
