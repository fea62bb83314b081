import type { AuditProbe } from '../../types.js';
import { cibaClientBindingProbe } from './ciba-client-binding.js';
import { cibaOpenidScopeProbe } from './ciba-openid-scope.js';
import { cibaSlowDownProbe } from './ciba-slow-down.js';
import { cibaUnknownAuthReqIdProbe } from './ciba-unknown-auth-req-id.js';
import { cibaUnknownUserProbe } from './ciba-unknown-user.js';

/** OpenID Connect CIBA Core 1.0, where the server advertises a backchannel authentication endpoint. */
export const CIBA_PROBES: readonly AuditProbe[] = [cibaUnknownAuthReqIdProbe, cibaSlowDownProbe, cibaUnknownUserProbe, cibaClientBindingProbe, cibaOpenidScopeProbe];
