import type { AuditProbe } from '../../types.js';
import { tokenContentTypeProbe } from './token-content-type.js';
import { tokenInvalidCodeProbe } from './token-invalid-code.js';
import { tokenMissingCodeProbe } from './token-missing-code.js';
import { tokenPasswordGrantProbe } from './token-password-grant.js';
import { tokenUnauthenticatedProbe } from './token-unauthenticated.js';
import { tokenUnsupportedGrantProbe } from './token-unsupported-grant.js';

/** The token endpoint: grants it refuses, its errors and response format. */
export const TOKEN_ENDPOINT_PROBES: readonly AuditProbe[] = [
  tokenUnsupportedGrantProbe,
  tokenPasswordGrantProbe,
  tokenInvalidCodeProbe,
  tokenMissingCodeProbe,
  tokenContentTypeProbe,
  tokenUnauthenticatedProbe,
];
