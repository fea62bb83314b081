import type { AuditProbe } from '../../types.js';
import { postLogoutRedirectExactProbe } from './post-logout-redirect-exact.js';
import { promptNoneLoginRequiredProbe } from './prompt-none-login-required.js';
import { maxAgeReauthProbe } from './max-age-reauth.js';
import { idTokenHintOtherUserProbe } from './id-token-hint-other-user.js';

/** Sessions (OpenID Connect Core and RP-Initiated Logout): prompt, max_age, id_token_hint, post-logout redirects. */
export const SESSIONS_PROBES: readonly AuditProbe[] = [postLogoutRedirectExactProbe, promptNoneLoginRequiredProbe, maxAgeReauthProbe, idTokenHintOtherUserProbe];
