import { catalogued } from '../catalog.js';
import { DEPTH_PROBES } from './depth.js';
import type { AuditProbe } from '../types.js';
import { tokenExchangeTypeProbe } from './token-exchange-type.js';
import { clientAssertionAudienceProbe } from './client-assertion-audience.js';
import { clientAssertionExpiredProbe } from './client-assertion-expired.js';
import { clientAssertionReplayProbe } from './client-assertion-replay.js';
import { dpopBoundAsBearerProbe } from './dpop-bound-as-bearer.js';
import { dpopHtmHtuProbe } from './dpop-htm-htu.js';
import { dpopReplayProbe } from './dpop-replay.js';
import { jarUnsignedProbe } from './jar-unsigned.js';
import { parClientBindingProbe } from './par-client-binding.js';
import { parExpiryProbe } from './par-expiry.js';
import { parRequiredProbe } from './par-required.js';
import { parSingleUseProbe } from './par-single-use.js';
import { clientSecretWrongProbe } from './client-secret-wrong.js';
import { codeClientBindingProbe } from './code-client-binding.js';
import { codeRedirectBindingProbe } from './code-redirect-binding.js';
import { clientCredentialsPublicProbe } from './client-credentials-public.js';
import { codeSingleUseProbe } from './code-single-use.js';
import { deviceCodeSingleUseProbe } from './device-code-single-use.js';
import { deviceSlowDownProbe } from './device-slow-down.js';
import { deviceUnknownUserCodeProbe } from './device-unknown-user-code.js';
import { errorFormatProbe } from './error-format.js';
import { flowProbe } from './flow.js';
import { framingProbe } from './framing.js';
import { httpsEndpointsProbe } from './https-endpoints.js';
import { idTokenProbe } from './id-token.js';
import { implicitProbe } from './implicit.js';
import { issProbe } from './iss.js';
import { jwksProbe } from './jwks.js';
import { metadataProbe } from './metadata.js';
import { openRedirectorProbe } from './open-redirector.js';
import { pkceDowngradeProbe } from './pkce-downgrade.js';
import { pkcePlainProbe } from './pkce-plain.js';
import { pkceRequiredProbe } from './pkce-required.js';
import { pkceWrongVerifierProbe } from './pkce-wrong-verifier.js';
import { redirectUriExactProbe } from './redirect-uri-exact.js';
import { refreshRotationProbe } from './refresh-rotation.js';
import { repeatedParamsProbe } from './repeated-params.js';
import { resourceAudienceProbe } from './resource-audience.js';
import { resourceChallengeProbe } from './resource-challenge.js';
import { resourceInsufficientScopeProbe } from './resource-insufficient-scope.js';
import { resourceMetadataMatchProbe } from './resource-metadata-match.js';
import { resourceQueryTokenProbe } from './resource-query-token.js';
import { resourceRevokedTokenProbe } from './resource-revoked-token.js';
import { resourceExpiredTokenProbe } from './resource-expired-token.js';
import { resourceServersProbe } from './resource-servers.js';
import { stateProbe } from './state.js';
import { tlsProbe } from './tls.js';
import { tokenNoStoreProbe } from './token-no-store.js';
import { tokenPostOnlyProbe } from './token-post-only.js';
import { unknownParamsProbe } from './unknown-params.js';
import { postLogoutRedirectExactProbe } from './post-logout-redirect-exact.js';
import { promptNoneLoginRequiredProbe } from './prompt-none-login-required.js';
import { maxAgeReauthProbe } from './max-age-reauth.js';
import { idTokenHintOtherUserProbe } from './id-token-hint-other-user.js';

/** Every probe, in the order they run and are reported. The ones that read what others saw come last. */
export const PROBES: readonly AuditProbe[] = [
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
  openRedirectorProbe,
  clientSecretWrongProbe,
  implicitProbe,
  refreshRotationProbe,
  idTokenProbe,
  tokenPostOnlyProbe,
  repeatedParamsProbe,
  unknownParamsProbe,
  framingProbe,
  metadataProbe,
  jwksProbe,
  parRequiredProbe,
  parSingleUseProbe,
  parClientBindingProbe,
  parExpiryProbe,
  dpopReplayProbe,
  dpopHtmHtuProbe,
  dpopBoundAsBearerProbe,
  clientAssertionReplayProbe,
  clientAssertionAudienceProbe,
  clientAssertionExpiredProbe,
  jarUnsignedProbe,
  clientCredentialsPublicProbe,
  deviceCodeSingleUseProbe,
  postLogoutRedirectExactProbe,
  promptNoneLoginRequiredProbe,
  maxAgeReauthProbe,
  idTokenHintOtherUserProbe,
  deviceSlowDownProbe,
  deviceUnknownUserCodeProbe,
  // The resource server's (audit --protected-resource URL only).
  resourceChallengeProbe,
  resourceMetadataMatchProbe,
  resourceServersProbe,
  resourceAudienceProbe,
  resourceInsufficientScopeProbe,
  resourceQueryTokenProbe,
  resourceRevokedTokenProbe,
  resourceExpiredTokenProbe,
  httpsEndpointsProbe,
  tlsProbe,
  tokenNoStoreProbe,
  errorFormatProbe,
  tokenExchangeTypeProbe,
  ...DEPTH_PROBES,
].map(catalogued);
