import { dpopProofProbe, PROOF_CHANGES } from '../../dpop-variants.js';

export const dpopHs256Probe = dpopProofProbe({
  id: 'dpop-hs256',
  title: 'a DPoP proof with a symmetric algorithm (HS256) is refused',
  rfc: 'RFC 9449 §4.3 item 5',
  threat: 'RFC 8725 §2.1 (algorithm confusion)',
  remedy: 'Accept only the asymmetric algorithms of dpop_signing_alg_values_supported.',
  change: PROOF_CHANGES.hs256,
});
