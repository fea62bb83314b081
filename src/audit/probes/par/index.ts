import type { AuditProbe } from '../../types.js';
import { parExpiresInProbe } from './par-expires-in.js';
import { parGetRefusedProbe } from './par-get-refused.js';
import { parRequestUriEntropyProbe } from './par-request-uri-entropy.js';
import { parRequestUriParamProbe } from './par-request-uri-param.js';
import { parUnauthenticatedProbe } from './par-unauthenticated.js';
import { parUnknownRequestUriProbe } from './par-unknown-request-uri.js';

/** Pushed authorization requests (RFC 9126) beyond the first rounds. */
export const PAR_PROBES: readonly AuditProbe[] = [parRequestUriParamProbe, parUnauthenticatedProbe, parExpiresInProbe, parRequestUriEntropyProbe, parUnknownRequestUriProbe, parGetRefusedProbe];
