import { dpopProofProbe, PROOF_CHANGES } from '../../dpop-variants.js';

export const dpopIatOldProbe = dpopProofProbe({
  id: 'dpop-iat-old',
  title: 'a DPoP proof made an hour ago is refused',
  rfc: 'RFC 9449 §4.3 item 11',
  threat: 'RFC 9449 §11.1 (pre-generated and replayed proofs)',
  remedy: 'Accept proofs only within a short window around their iat (or ask for a server nonce).',
  change: PROOF_CHANGES.iatOld,
});
