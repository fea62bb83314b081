import type { AuditProbe } from '../../types.js';
import { httpsEndpointsProbe } from './https-endpoints.js';
import { tlsProbe } from './tls.js';
import { tls13Probe } from './tls-1-3.js';
import { tlsCookieSecureProbe } from './tls-cookie-secure.js';
import { tlsForwardSecrecyProbe } from './tls-forward-secrecy.js';
import { tlsHstsAllPagesProbe } from './tls-hsts-all-pages.js';
import { tlsHstsMaxAgeProbe } from './tls-hsts-max-age.js';

/** TLS: https endpoints, protocol versions and certificate, HSTS lifetime and coverage, cookies, TLS 1.3, forward secrecy. */
export const TLS_PROBES: readonly AuditProbe[] = [httpsEndpointsProbe, tlsProbe, tlsHstsMaxAgeProbe, tlsHstsAllPagesProbe, tlsCookieSecureProbe, tls13Probe, tlsForwardSecrecyProbe];
