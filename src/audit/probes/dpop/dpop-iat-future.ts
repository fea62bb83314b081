import { dpopProofProbe, PROOF_CHANGES } from '../../dpop-variants.js';

export const dpopIatFutureProbe = dpopProofProbe({
  id: 'dpop-iat-future',
  title: 'a DPoP proof dated an hour ahead is refused',
  rfc: 'RFC 9449 §4.3 item 11',
  threat: 'RFC 9449 §11.2 (proofs pre-generated for later use)',
  remedy: 'Refuse proofs whose iat is in the future beyond a small clock skew.',
  change: PROOF_CHANGES.iatFuture,
});
