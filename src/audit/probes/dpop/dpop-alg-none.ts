import { dpopProofProbe, PROOF_CHANGES } from '../../dpop-variants.js';

export const dpopAlgNoneProbe = dpopProofProbe({
  id: 'dpop-alg-none',
  title: 'an unsigned (alg none) DPoP proof is refused',
  rfc: 'RFC 9449 §4.3',
  threat: 'RFC 9449 §11.1 (forged proofs); RFC 8725 §2.1',
  remedy: 'Verify DPoP proofs with asymmetric algorithms only, never none.',
  change: PROOF_CHANGES.algNone,
});
