import { dpopProofProbe, PROOF_CHANGES } from '../../dpop-variants.js';

export const dpopTypProbe = dpopProofProbe({
  id: 'dpop-typ',
  title: 'a DPoP proof typed JWT (not dpop+jwt) is refused',
  rfc: 'RFC 9449 §4.3 item 4',
  threat: 'RFC 8725 §3.11 (JWT confusion through missing explicit typing)',
  remedy: 'Require typ dpop+jwt in DPoP proofs.',
  change: PROOF_CHANGES.typJwt,
});
