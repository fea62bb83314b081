import { listOf, metadataDocument } from '../../metadata-document.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** The signing algorithm lists where RFC 8414 section 2 and RFC 9449 section 5.1 forbid none. */
const SIGNED_ONLY = [
  'token_endpoint_auth_signing_alg_values_supported',
  'revocation_endpoint_auth_signing_alg_values_supported',
  'introspection_endpoint_auth_signing_alg_values_supported',
  'dpop_signing_alg_values_supported',
];

/** RFC 8414 section 2: "The value none MUST NOT be used" in the client authentication algorithm lists. */
export const metadataNoAlgNoneProbe: AuditProbe = {
  id: 'metadata-no-alg-none',
  title: 'no signing algorithm list of the metadata offers none',
  rfc: 'RFC 8414 §2',
  category: 'metadata',
  threat: 'RFC 8725 §2.1 (alg none); RFC 8725 §3.1',
  remedy: 'Remove none from the *_signing_alg_values_supported lists of client authentication and DPoP.',
  async run(ctx) {
    const document = metadataDocument(ctx);
    const offending = SIGNED_ONLY.filter((field) => listOf(document, field)?.some((alg) => alg.toLowerCase() === 'none'));
    if (offending.length > 0) return fail(`none is offered in ${offending.join(', ')}`);
    const present = SIGNED_ONLY.filter((field) => document[field] !== undefined);
    return pass(present.length > 0 ? `none is not in ${present.join(', ')}` : 'no client authentication or DPoP algorithm lists');
  },
};
