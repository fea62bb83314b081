import type { AuditProbe } from '../../types.js';
import { fapi2AssertionAudienceProbe } from './fapi2-assertion-audience.js';
import { fapi2CodeLifetimeProbe } from './fapi2-code-lifetime.js';
import { fapi2MetadataProbe } from './fapi2-metadata.js';
import { fapi2PkceRequiredProbe } from './fapi2-pkce-required.js';
import { fapi2SenderConstrainedProbe } from './fapi2-sender-constrained.js';
import { jarmResponseProbe } from './jarm-response.js';
import { rarUnknownTypeProbe } from './rar-unknown-type.js';

/** The FAPI 2.0 Security Profile's server rules that no other probe checks, JARM and rich authorization requests. */
export const FAPI2_PROBES: readonly AuditProbe[] = [
  fapi2MetadataProbe,
  fapi2PkceRequiredProbe,
  fapi2SenderConstrainedProbe,
  fapi2AssertionAudienceProbe,
  jarmResponseProbe,
  rarUnknownTypeProbe,
  fapi2CodeLifetimeProbe,
];
