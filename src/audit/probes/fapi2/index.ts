import type { AuditProbe } from '../../types.js';
import { fapi2AssertionAudienceProbe } from './fapi2-assertion-audience.js';
import { fapi2AssertionRs256Probe } from './fapi2-assertion-rs256.js';
import { fapi2DpopRs256Probe } from './fapi2-dpop-rs256.js';
import { fapi2MetadataAlgsProbe } from './fapi2-metadata-algs.js';
import { fapi2RequestObjectRs256Probe } from './fapi2-request-object-rs256.js';
import { fapi2SigningAlgProbe } from './fapi2-signing-alg.js';
import { fapi2CodeLifetimeProbe } from './fapi2-code-lifetime.js';
import { fapi2MetadataProbe } from './fapi2-metadata.js';
import { fapi2PkceRequiredProbe } from './fapi2-pkce-required.js';
import { fapi2SenderConstrainedProbe } from './fapi2-sender-constrained.js';
import { jarmResponseProbe } from './jarm-response.js';
import { rarUnknownTypeProbe } from './rar-unknown-type.js';

/** The FAPI 2.0 Security Profile's server rules that no other probe checks (its cryptography, section 5.4.1, among them), JARM and rich authorization requests. */
export const FAPI2_PROBES: readonly AuditProbe[] = [
  fapi2MetadataProbe,
  fapi2PkceRequiredProbe,
  fapi2SenderConstrainedProbe,
  fapi2AssertionAudienceProbe,
  fapi2MetadataAlgsProbe,
  fapi2SigningAlgProbe,
  fapi2AssertionRs256Probe,
  fapi2RequestObjectRs256Probe,
  fapi2DpopRs256Probe,
  jarmResponseProbe,
  rarUnknownTypeProbe,
  fapi2CodeLifetimeProbe,
];
