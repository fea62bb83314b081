import type { AuditProbe } from '../../types.js';
import { dpopReplayProbe } from './dpop-replay.js';
import { dpopHtmHtuProbe } from './dpop-htm-htu.js';
import { dpopBoundAsBearerProbe } from './dpop-bound-as-bearer.js';
import { dpopAlgNoneProbe } from './dpop-alg-none.js';
import { dpopBadSignatureProbe } from './dpop-bad-signature.js';
import { dpopCnfJktProbe } from './dpop-cnf-jkt.js';
import { dpopHs256Probe } from './dpop-hs256.js';
import { dpopIatFutureProbe } from './dpop-iat-future.js';
import { dpopIatOldProbe } from './dpop-iat-old.js';
import { dpopPrivateJwkProbe } from './dpop-private-jwk.js';
import { dpopRefreshBindingProbe } from './dpop-refresh-binding.js';
import { dpopTokenTypeProbe } from './dpop-token-type.js';
import { dpopTypProbe } from './dpop-typ.js';

/** DPoP (RFC 9449): proofs replayed or built wrong are refused, tokens are bound. */
export const DPOP_PROBES: readonly AuditProbe[] = [
  dpopReplayProbe,
  dpopHtmHtuProbe,
  dpopBoundAsBearerProbe,
  dpopTokenTypeProbe,
  dpopCnfJktProbe,
  dpopRefreshBindingProbe,
  dpopAlgNoneProbe,
  dpopHs256Probe,
  dpopBadSignatureProbe,
  dpopTypProbe,
  dpopPrivateJwkProbe,
  dpopIatOldProbe,
  dpopIatFutureProbe,
];
