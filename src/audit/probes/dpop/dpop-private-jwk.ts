import { dpopProofProbe, PROOF_CHANGES } from '../../dpop-variants.js';

export const dpopPrivateJwkProbe = dpopProofProbe({
  id: 'dpop-private-jwk',
  title: 'a DPoP proof whose jwk holds the private key is refused',
  rfc: 'RFC 9449 §4.3 item 7',
  threat: 'RFC 9449 §4.2 (a private key in the header)',
  remedy: 'Refuse proofs whose jwk header contains private key members.',
  change: PROOF_CHANGES.privateJwk,
});
