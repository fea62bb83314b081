import type { AuditProbe } from '../../types.js';
import { codeSingleUseProbe } from './code-single-use.js';
import { codeRedirectBindingProbe } from './code-redirect-binding.js';
import { codeClientBindingProbe } from './code-client-binding.js';
import { tokenPostOnlyProbe } from './token-post-only.js';
import { clientCredentialsPublicProbe } from './client-credentials-public.js';
import { errorFormatProbe } from './error-format.js';
import { tokenExchangeTypeProbe } from './token-exchange-type.js';
import { tokenContentTypeProbe } from './token-content-type.js';
import { tokenInvalidCodeProbe } from './token-invalid-code.js';
import { tokenMissingCodeProbe } from './token-missing-code.js';
import { tokenPasswordGrantProbe } from './token-password-grant.js';
import { tokenUnauthenticatedProbe } from './token-unauthenticated.js';
import { tokenUnsupportedGrantProbe } from './token-unsupported-grant.js';

/** The token endpoint (RFC 6749 section 3.2): codes bound and used once, grants it refuses, its errors and response format. */
export const TOKEN_ENDPOINT_PROBES: readonly AuditProbe[] = [
  codeSingleUseProbe,
  codeRedirectBindingProbe,
  codeClientBindingProbe,
  tokenPostOnlyProbe,
  clientCredentialsPublicProbe,
  errorFormatProbe,
  tokenExchangeTypeProbe,
  tokenUnsupportedGrantProbe,
  tokenPasswordGrantProbe,
  tokenInvalidCodeProbe,
  tokenMissingCodeProbe,
  tokenContentTypeProbe,
  tokenUnauthenticatedProbe,
];
