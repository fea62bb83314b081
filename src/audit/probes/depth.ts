import type { AuditProbe } from '../types.js';
import { JWT_PROBES } from './jwt/index.js';
import { DPOP_PROBES } from './dpop/index.js';
import { AUTHORIZATION_ENDPOINT_PROBES } from './authorization-endpoint/index.js';
import { TOKEN_ENDPOINT_PROBES } from './token-endpoint/index.js';
import { PKCE_PROBES } from './pkce/index.js';
import { ID_TOKEN_PROBES } from './id-token/index.js';
import { CONCURRENCY_PROBES } from './concurrency/index.js';
import { PAR_PROBES } from './par/index.js';
import { DEVICE_PROBES } from './device/index.js';
import { REVOCATION_PROBES } from './revocation/index.js';
import { INTROSPECTION_PROBES } from './introspection/index.js';
import { TLS_PROBES } from './tls/index.js';
import { METADATA_PROBES } from './metadata/index.js';
import { TOKEN_PROBES } from './tokens/index.js';

/**
 * The third round's probes (issue 24, depth), by category; each declares its category, threat and
 * remedy, and is tested in test/audit/depth/ against the mock and a server weakened that one way.
 */
export const DEPTH_PROBES: readonly AuditProbe[] = [
  ...AUTHORIZATION_ENDPOINT_PROBES,
  ...TOKEN_ENDPOINT_PROBES,
  ...PKCE_PROBES,
  ...ID_TOKEN_PROBES,
  ...METADATA_PROBES,
  ...TOKEN_PROBES,
  ...JWT_PROBES,
  ...DPOP_PROBES,
  ...PAR_PROBES,
  ...DEVICE_PROBES,
  ...REVOCATION_PROBES,
  ...INTROSPECTION_PROBES,
  ...CONCURRENCY_PROBES,
  ...TLS_PROBES,
];
