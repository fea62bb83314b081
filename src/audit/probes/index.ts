import type { Probe } from '../types.js';
import { clientSecretWrongProbe } from './client-secret-wrong.js';
import { codeClientBindingProbe } from './code-client-binding.js';
import { codeRedirectBindingProbe } from './code-redirect-binding.js';
import { codeSingleUseProbe } from './code-single-use.js';
import { errorFormatProbe } from './error-format.js';
import { flowProbe } from './flow.js';
import { httpsEndpointsProbe } from './https-endpoints.js';
import { implicitProbe } from './implicit.js';
import { issProbe } from './iss.js';
import { pkceDowngradeProbe } from './pkce-downgrade.js';
import { pkcePlainProbe } from './pkce-plain.js';
import { pkceRequiredProbe } from './pkce-required.js';
import { pkceWrongVerifierProbe } from './pkce-wrong-verifier.js';
import { redirectUriExactProbe } from './redirect-uri-exact.js';
import { refreshRotationProbe } from './refresh-rotation.js';
import { stateProbe } from './state.js';
import { tokenNoStoreProbe } from './token-no-store.js';

/** Every probe, in the order they run and are reported. The ones that read what others saw come last. */
export const PROBES: readonly Probe[] = [
  flowProbe,
  stateProbe,
  issProbe,
  codeSingleUseProbe,
  codeRedirectBindingProbe,
  codeClientBindingProbe,
  pkceRequiredProbe,
  pkceWrongVerifierProbe,
  pkceDowngradeProbe,
  pkcePlainProbe,
  redirectUriExactProbe,
  clientSecretWrongProbe,
  implicitProbe,
  refreshRotationProbe,
  httpsEndpointsProbe,
  tokenNoStoreProbe,
  errorFormatProbe,
];
