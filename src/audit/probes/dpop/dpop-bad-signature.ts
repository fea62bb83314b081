import { dpopProofProbe, PROOF_CHANGES } from '../../dpop-variants.js';

export const dpopBadSignatureProbe = dpopProofProbe({
  id: 'dpop-bad-signature',
  title: 'a DPoP proof with a broken signature is refused',
  rfc: 'RFC 9449 §4.3 item 6',
  threat: 'RFC 9449 §11.1 (forged proofs)',
  remedy: 'Verify the proof signature with the key in its jwk header.',
  change: PROOF_CHANGES.badSignature,
});
