import { freshIdToken } from '../../id-token-response.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';
import { jsonObject } from '../../json-body.js';

/** OpenID Connect Core section 10.1: the key that signed an ID token is found in the JWKS (by kid when there are several). */
export const idTokenKidKnownProbe: AuditProbe = {
  id: 'id-token-kid-known',
  title: "the ID token's kid names a published key",
  rfc: 'OIDC Core §10.1',
  category: 'id-token',
  threat: 'RFC 8725 §3.10 (verification key chosen by the token)',
  remedy: 'Set kid in ID tokens to the kid of a key published at jwks_uri.',
  needsFlow: true,
  async run(ctx) {
    const { idToken } = await freshIdToken(ctx);
    if (String(idToken.header.alg).startsWith('HS')) return skip(`${String(idToken.header.alg)}: MACed with the client secret, no published key`);
    const uri = ctx.endpoint('jwks_uri');
    if (uri === undefined) return skip('no jwks_uri in the metadata (give --jwks-uri)');
    const res = await ctx.http.request(uri);
    const listed = jsonObject(res.body, `the answer of ${uri}`)?.keys;
    const keys = (Array.isArray(listed) ? (listed as unknown[]) : []).filter((k): k is { kid?: unknown } => !!k && typeof k === 'object');
    const kid = idToken.header.kid;
    if (kid === undefined) return keys.length <= 1 ? pass('no kid, and a single key') : fail(`no kid, and ${keys.length} keys to choose from`);
    if (!keys.some((k) => k.kid === kid)) return fail(`kid ${JSON.stringify(kid)} is not in ${uri}`);
    return pass(`kid ${JSON.stringify(kid)} published`);
  },
};
