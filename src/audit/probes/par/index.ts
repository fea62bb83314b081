import type { AuditProbe } from '../../types.js';
import { parRequiredProbe } from './par-required.js';
import { parSingleUseProbe } from './par-single-use.js';
import { parClientBindingProbe } from './par-client-binding.js';
import { parExpiryProbe } from './par-expiry.js';
import { parExpiresInProbe } from './par-expires-in.js';
import { parGetRefusedProbe } from './par-get-refused.js';
import { parRequestUriEntropyProbe } from './par-request-uri-entropy.js';
import { parRequestUriParamProbe } from './par-request-uri-param.js';
import { parUnauthenticatedProbe } from './par-unauthenticated.js';
import { parUnknownRequestUriProbe } from './par-unknown-request-uri.js';

/** Pushed authorization requests (RFC 9126). */
export const PAR_PROBES: readonly AuditProbe[] = [
  parRequiredProbe,
  parSingleUseProbe,
  parClientBindingProbe,
  parExpiryProbe,
  parRequestUriParamProbe,
  parUnauthenticatedProbe,
  parExpiresInProbe,
  parRequestUriEntropyProbe,
  parUnknownRequestUriProbe,
  parGetRefusedProbe,
];
