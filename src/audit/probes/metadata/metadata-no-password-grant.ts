import { listOf, metadataDocument } from '../../metadata-document.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 9700 section 2.4: the resource owner password credentials grant MUST NOT be used. */
export const metadataNoPasswordGrantProbe: AuditProbe = {
  id: 'metadata-no-password-grant',
  title: 'the metadata does not offer the password grant',
  rfc: 'RFC 9700 §2.4',
  category: 'metadata',
  threat: 'RFC 9700 §2.4 (the client sees the password); RFC 6819 §4.4.3',
  remedy: 'Remove password from grant_types_supported and turn the grant off.',
  async run(ctx) {
    const grants = listOf(metadataDocument(ctx), 'grant_types_supported');
    if (grants?.includes('password')) return fail('grant_types_supported lists password');
    return pass(grants ? 'password is not in grant_types_supported' : 'no grant_types_supported (the default is authorization_code and implicit, RFC 8414 §2)');
  },
};
