import { catalogued } from '../catalog.js';
import { DEPTH_PROBES } from './depth.js';
import type { AuditProbe } from '../types.js';
import { tokenExchangeTypeProbe } from './token-endpoint/token-exchange-type.js';
import { clientAssertionAudienceProbe } from './client-authentication/client-assertion-audience.js';
import { clientAssertionExpiredProbe } from './jwt/client-assertion-expired.js';
import { clientAssertionReplayProbe } from './client-authentication/client-assertion-replay.js';
import { dpopBoundAsBearerProbe } from './dpop/dpop-bound-as-bearer.js';
import { dpopHtmHtuProbe } from './dpop/dpop-htm-htu.js';
import { dpopReplayProbe } from './dpop/dpop-replay.js';
import { jarUnsignedProbe } from './jwt/jar-unsigned.js';
import { parClientBindingProbe } from './par/par-client-binding.js';
import { parExpiryProbe } from './par/par-expiry.js';
import { parRequiredProbe } from './par/par-required.js';
import { parSingleUseProbe } from './par/par-single-use.js';
import { clientSecretWrongProbe } from './client-authentication/client-secret-wrong.js';
import { codeClientBindingProbe } from './token-endpoint/code-client-binding.js';
import { codeRedirectBindingProbe } from './token-endpoint/code-redirect-binding.js';
import { clientCredentialsPublicProbe } from './token-endpoint/client-credentials-public.js';
import { codeSingleUseProbe } from './token-endpoint/code-single-use.js';
import { deviceCodeSingleUseProbe } from './device/device-code-single-use.js';
import { deviceSlowDownProbe } from './device/device-slow-down.js';
import { deviceUnknownUserCodeProbe } from './device/device-unknown-user-code.js';
import { errorFormatProbe } from './token-endpoint/error-format.js';
import { flowProbe } from './authorization-endpoint/flow.js';
import { framingProbe } from './authorization-endpoint/framing.js';
import { httpsEndpointsProbe } from './tls/https-endpoints.js';
import { idTokenProbe } from './id-token/id-token.js';
import { implicitProbe } from './authorization-endpoint/implicit.js';
import { issProbe } from './authorization-endpoint/iss.js';
import { jwksProbe } from './metadata/jwks.js';
import { metadataProbe } from './metadata/metadata.js';
import { openRedirectorProbe } from './authorization-endpoint/open-redirector.js';
import { pkceDowngradeProbe } from './pkce/pkce-downgrade.js';
import { pkcePlainProbe } from './pkce/pkce-plain.js';
import { pkceRequiredProbe } from './pkce/pkce-required.js';
import { pkceWrongVerifierProbe } from './pkce/pkce-wrong-verifier.js';
import { redirectUriExactProbe } from './authorization-endpoint/redirect-uri-exact.js';
import { refreshRotationProbe } from './tokens/refresh-rotation.js';
import { repeatedParamsProbe } from './authorization-endpoint/repeated-params.js';
import { resourceAudienceProbe } from './protected-resource/resource-audience.js';
import { resourceChallengeProbe } from './protected-resource/resource-challenge.js';
import { resourceInsufficientScopeProbe } from './protected-resource/resource-insufficient-scope.js';
import { resourceMetadataMatchProbe } from './protected-resource/resource-metadata-match.js';
import { resourceQueryTokenProbe } from './protected-resource/resource-query-token.js';
import { resourceRevokedTokenProbe } from './protected-resource/resource-revoked-token.js';
import { resourceExpiredTokenProbe } from './protected-resource/resource-expired-token.js';
import { resourceServersProbe } from './protected-resource/resource-servers.js';
import { stateProbe } from './authorization-endpoint/state.js';
import { tlsProbe } from './tls/tls.js';
import { tokenNoStoreProbe } from './tokens/token-no-store.js';
import { tokenPostOnlyProbe } from './token-endpoint/token-post-only.js';
import { unknownParamsProbe } from './authorization-endpoint/unknown-params.js';
import { postLogoutRedirectExactProbe } from './sessions/post-logout-redirect-exact.js';
import { promptNoneLoginRequiredProbe } from './sessions/prompt-none-login-required.js';
import { maxAgeReauthProbe } from './sessions/max-age-reauth.js';
import { idTokenHintOtherUserProbe } from './sessions/id-token-hint-other-user.js';

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
