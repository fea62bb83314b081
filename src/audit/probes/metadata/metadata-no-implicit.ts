import { listOf, metadataDocument } from '../../metadata-document.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 9700 section 2.1.2: response types that put tokens in the front channel are not offered, nor the implicit grant (RFC 8414 section 2, grant_types_supported). */
export const metadataNoImplicitProbe: AuditProbe = {
  id: 'metadata-no-implicit',
  title: 'the metadata offers no response type that issues tokens in the front channel',
  rfc: 'RFC 9700 §2.1.2',
  category: 'metadata',
  threat: 'RFC 9700 §4.3.2 (access token leakage in the browser history); RFC 9700 §2.1.2',
  remedy: 'Remove token and id_token token from response_types_supported (and turn off the implicit grant).',
  async run(ctx) {
    const types = listOf(metadataDocument(ctx), 'response_types_supported') ?? [];
    const implicit = types.filter((t) => t.split(' ').includes('token'));
    const grants = listOf(metadataDocument(ctx), 'grant_types_supported') ?? [];
    const found = [
      ...(implicit.length > 0 ? [`response_types_supported lists ${implicit.map((t) => JSON.stringify(t)).join(', ')}`] : []),
      ...(grants.includes('implicit') ? ['grant_types_supported lists "implicit"'] : []),
    ];
    if (found.length > 0) return fail(found.join('; '));
    return pass(`response_types_supported: ${types.join(', ') || '(none listed)'}; grant_types_supported: ${grants.join(', ') || '(none listed)'}`);
  },
};
