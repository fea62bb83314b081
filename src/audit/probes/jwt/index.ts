import type { AuditProbe } from '../../types.js';
import { clientAssertionExpiredProbe } from './client-assertion-expired.js';
import { jarUnsignedProbe } from './jar-unsigned.js';
import { clientAssertionAlgNoneProbe } from './client-assertion-alg-none.js';
import { clientAssertionBadSignatureProbe } from './client-assertion-bad-signature.js';
import { clientAssertionCritProbe } from './client-assertion-crit.js';
import { clientAssertionFarExpProbe } from './client-assertion-far-exp.js';
import { clientAssertionHs256PublicKeyProbe } from './client-assertion-hs256-public-key.js';
import { clientAssertionJwkHeaderProbe } from './client-assertion-jwk-header.js';
import { clientAssertionKidInjectionProbe } from './client-assertion-kid-injection.js';
import { clientAssertionNbfFutureProbe } from './client-assertion-nbf-future.js';
import { clientAssertionNoExpProbe } from './client-assertion-no-exp.js';
import { clientAssertionWrongIssuerProbe } from './client-assertion-wrong-issuer.js';
import { requestObjectBadSignatureProbe } from './request-object-bad-signature.js';
import { requestObjectCritProbe } from './request-object-crit.js';
import { requestObjectExpiredProbe } from './request-object-expired.js';
import { requestObjectHs256PublicKeyProbe } from './request-object-hs256-public-key.js';
import { requestObjectJwkHeaderProbe } from './request-object-jwk-header.js';

/** The server's acceptance of the client's JWTs: client assertions (RFC 7523) and request objects (RFC 9101). */
export const JWT_PROBES: readonly AuditProbe[] = [
  clientAssertionExpiredProbe,
  jarUnsignedProbe,
  clientAssertionAlgNoneProbe,
  clientAssertionHs256PublicKeyProbe,
  clientAssertionBadSignatureProbe,
  clientAssertionJwkHeaderProbe,
  clientAssertionKidInjectionProbe,
  clientAssertionCritProbe,
  clientAssertionNoExpProbe,
  clientAssertionNbfFutureProbe,
  clientAssertionFarExpProbe,
  clientAssertionWrongIssuerProbe,
  requestObjectBadSignatureProbe,
  requestObjectHs256PublicKeyProbe,
  requestObjectJwkHeaderProbe,
  requestObjectCritProbe,
  requestObjectExpiredProbe,
];
