import type { AuditProbe } from '../../types.js';
import { flowProbe } from './flow.js';
import { stateProbe } from './state.js';
import { issProbe } from './iss.js';
import { redirectUriExactProbe } from './redirect-uri-exact.js';
import { openRedirectorProbe } from './open-redirector.js';
import { implicitProbe } from './implicit.js';
import { repeatedParamsProbe } from './repeated-params.js';
import { unknownParamsProbe } from './unknown-params.js';
import { framingProbe } from './framing.js';
import { authorizeCodeOnlyProbe } from './authorize-code-only.js';
import { authorizeErrorIssProbe } from './authorize-error-iss.js';
import { authorizeErrorStateProbe } from './authorize-error-state.js';
import { authorizeRedirectUriFragmentProbe } from './authorize-redirect-uri-fragment.js';
import { authorizeRedirectUriJavascriptProbe } from './authorize-redirect-uri-javascript.js';
import { authorizeReferrerPolicyProbe } from './authorize-referrer-policy.js';
import { authorizeScopeUnknownProbe } from './authorize-scope-unknown.js';
import { authorizeUnknownClientProbe } from './authorize-unknown-client.js';
import { authorizeUnsupportedResponseTypeProbe } from './authorize-unsupported-response-type.js';

/** The authorization endpoint (RFC 6749 section 3.1): the flow every other probe builds on, state and iss, redirect URIs, what it refuses, what its redirects and pages carry. */
export const AUTHORIZATION_ENDPOINT_PROBES: readonly AuditProbe[] = [
  flowProbe,
  stateProbe,
  issProbe,
  redirectUriExactProbe,
  openRedirectorProbe,
  implicitProbe,
  repeatedParamsProbe,
  unknownParamsProbe,
  framingProbe,
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
