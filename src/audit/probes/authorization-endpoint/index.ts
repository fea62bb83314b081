import type { AuditProbe } from '../../types.js';
import { authorizeCodeOnlyProbe } from './authorize-code-only.js';
import { authorizeErrorIssProbe } from './authorize-error-iss.js';
import { authorizeErrorStateProbe } from './authorize-error-state.js';
import { authorizeRedirectUriFragmentProbe } from './authorize-redirect-uri-fragment.js';
import { authorizeRedirectUriJavascriptProbe } from './authorize-redirect-uri-javascript.js';
import { authorizeReferrerPolicyProbe } from './authorize-referrer-policy.js';
import { authorizeScopeUnknownProbe } from './authorize-scope-unknown.js';
import { authorizeUnknownClientProbe } from './authorize-unknown-client.js';
import { authorizeUnsupportedResponseTypeProbe } from './authorize-unsupported-response-type.js';

/** The authorization endpoint: what it refuses, what its redirects and pages carry. */
export const AUTHORIZATION_ENDPOINT_PROBES: readonly AuditProbe[] = [
  authorizeUnknownClientProbe,
  authorizeUnsupportedResponseTypeProbe,
  authorizeRedirectUriJavascriptProbe,
  authorizeRedirectUriFragmentProbe,
  authorizeErrorStateProbe,
  authorizeErrorIssProbe,
  authorizeScopeUnknownProbe,
  authorizeReferrerPolicyProbe,
  authorizeCodeOnlyProbe,
];
