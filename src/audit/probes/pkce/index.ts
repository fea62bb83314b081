import type { AuditProbe } from '../../types.js';
import { pkceMethodUnknownProbe } from './pkce-method-unknown.js';
import { pkceVerifierCharsetProbe } from './pkce-verifier-charset.js';
import { pkceVerifierShortProbe } from './pkce-verifier-short.js';
import { pkceVerifierWithoutChallengeProbe } from './pkce-verifier-without-challenge.js';

/** PKCE (RFC 7636) beyond the first rounds: verifiers and methods outside the specification, the downgrade. */
export const PKCE_PROBES: readonly AuditProbe[] = [pkceVerifierShortProbe, pkceVerifierCharsetProbe, pkceMethodUnknownProbe, pkceVerifierWithoutChallengeProbe];
