import { metadataDocument } from '../../metadata-document.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';
import { jsonObject } from '../../json-body.js';

const COMPARED = ['issuer', 'authorization_endpoint', 'token_endpoint', 'jwks_uri', 'revocation_endpoint', 'introspection_endpoint', 'pushed_authorization_request_endpoint'];

/**
 * RFC 8414 section 3 and OpenID Connect Discovery section 4: the two well-known documents of one issuer
 * describe the same server; a client reading the other one must not be sent elsewhere.
 */
export const metadataDocumentsAgreeProbe: AuditProbe = {
  id: 'metadata-documents-agree',
  title: 'the OAuth and OpenID Connect metadata documents agree',
  rfc: 'RFC 8414 §3',
  category: 'metadata',
  threat: 'RFC 9700 §4.4 (mix-up through inconsistent metadata)',
  remedy: 'Serve one set of endpoints at both /.well-known/oauth-authorization-server and /.well-known/openid-configuration.',
  async run(ctx) {
    const issuer = String(metadataDocument(ctx).issuer).replace(/\/$/, '');
    const origin = new URL(issuer);
    const path = origin.pathname === '/' ? '' : origin.pathname;
    const urls = [`${origin.origin}/.well-known/oauth-authorization-server${path}`, `${issuer}/.well-known/openid-configuration`];
    const documents: Record<string, unknown>[] = [];
    for (const url of urls) {
      const res = await ctx.http.request(url, { headers: { accept: 'application/json' } });
      if (res.status !== 200) return skip(`only one document: ${url} answered HTTP ${res.status}`);
      const document = jsonObject(res.body, `the answer of ${url}`);
      if (document === undefined) return fail(`${url} is not a JSON object`);
      documents.push(document);
    }
    const [oauth, oidc] = documents as [Record<string, unknown>, Record<string, unknown>];
    const differ = COMPARED.filter((field) => oauth[field] !== undefined && oidc[field] !== undefined && oauth[field] !== oidc[field]);
    if (differ.length > 0) return fail(`they differ in ${differ.map((f) => `${f} (${JSON.stringify(oauth[f])} / ${JSON.stringify(oidc[f])})`).join(', ')}`);
    return pass(`both documents name the same ${COMPARED.filter((f) => oauth[f] !== undefined && oidc[f] !== undefined).join(', ')}`);
  },
};
