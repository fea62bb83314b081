import type { AuditProbe } from '../../types.js';
import { pkceRequiredProbe } from './pkce-required.js';
import { pkceWrongVerifierProbe } from './pkce-wrong-verifier.js';
import { pkceDowngradeProbe } from './pkce-downgrade.js';
import { pkcePlainProbe } from './pkce-plain.js';
import { pkceMethodUnknownProbe } from './pkce-method-unknown.js';
import { pkceVerifierCharsetProbe } from './pkce-verifier-charset.js';
import { pkceVerifierShortProbe } from './pkce-verifier-short.js';
import { pkceVerifierWithoutChallengeProbe } from './pkce-verifier-without-challenge.js';

/** PKCE (RFC 7636): required, checked, not downgraded, S256 only; verifiers and methods outside the specification. */
export const PKCE_PROBES: readonly AuditProbe[] = [
  pkceRequiredProbe,
  pkceWrongVerifierProbe,
  pkceDowngradeProbe,
  pkcePlainProbe,
  pkceVerifierShortProbe,
  pkceVerifierCharsetProbe,
  pkceMethodUnknownProbe,
  pkceVerifierWithoutChallengeProbe,
];
