import { fail, pass, skip, type AuditProbe } from '../../types.js';
import { jsonObject } from '../../json-body.js';

/** RFC 7517 section 4.5: keys of one set are told apart by kid; two keys with one kid make the choice the token's. */
export const jwksKidUniqueProbe: AuditProbe = {
  id: 'jwks-kid-unique',
  title: 'every key of the JWKS has its own kid',
  rfc: 'RFC 7517 §4.5',
  category: 'metadata',
  threat: 'RFC 8725 §3.10 (a token choosing its verification key)',
  remedy: 'Give each published key a distinct kid (use and alg too, RFC 7517 §4).',
  async run(ctx) {
    const uri = ctx.endpoint('jwks_uri');
    if (uri === undefined) return skip('no jwks_uri in the metadata (give --jwks-uri)');
    const res = await ctx.http.request(uri, { headers: { accept: 'application/json' } });
    const keys = jsonObject(res.body, `the answer of ${uri}`)?.keys;
    if (res.status !== 200 || !Array.isArray(keys)) return skip(`${uri} is no key set (HTTP ${res.status}); see the jwks probe`);
    const kids = keys.map((k) => (k && typeof k === 'object' ? (k as Record<string, unknown>).kid : undefined));
    const seen = new Set<unknown>();
    const repeated = kids.filter((kid) => kid !== undefined && (seen.has(kid) ? true : (seen.add(kid), false)));
    if (repeated.length > 0) return fail(`kid repeated: ${[...new Set(repeated)].map((k) => JSON.stringify(k)).join(', ')}`);
    if (keys.length > 1 && kids.includes(undefined)) return fail(`${kids.filter((k) => k === undefined).length} of ${keys.length} keys have no kid`);
    return pass(`${keys.length} ${keys.length === 1 ? 'key' : 'keys'}, each kid distinct`);
  },
};
