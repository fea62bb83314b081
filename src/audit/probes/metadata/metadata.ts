import { describeAttempts, sameIgnoringTrailingSlash } from '../../metadata-lookup.js';
import { isLoopbackHost } from '../../../oauth/loopback.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

const REQUIRED = ['issuer', 'authorization_endpoint', 'token_endpoint', 'response_types_supported'];
/** OpenID Connect Discovery 1.0 section 3 adds these. */
const REQUIRED_OIDC = ['jwks_uri', 'subject_types_supported', 'id_token_signing_alg_values_supported'];
const ENDPOINTS = [
  'issuer',
  'authorization_endpoint',
  'token_endpoint',
  'jwks_uri',
  'userinfo_endpoint',
  'introspection_endpoint',
  'revocation_endpoint',
  'registration_endpoint',
  'pushed_authorization_request_endpoint',
  'device_authorization_endpoint',
  'end_session_endpoint',
];

/** What is wrong with a metadata document, one sentence each (RFC 8414 sections 2 and 3.3, RFC 9700 section 2.1.1). */
export function metadataProblems(document: Record<string, unknown>, issuer: string, openid: boolean, issuerGiven = true): string[] {
  const problems: string[] = [];
  if (document.issuer !== issuer && (issuerGiven || !sameIgnoringTrailingSlash(document.issuer, issuer)))
    problems.push(`issuer ${JSON.stringify(document.issuer)} is not ${JSON.stringify(issuer)}, the one asked for (RFC 8414 §3.3)`);
  const missing = [...REQUIRED, ...(openid ? REQUIRED_OIDC : [])].filter((f) => document[f] === undefined);
  if (missing.length > 0) problems.push(`required ${missing.length === 1 ? 'field' : 'fields'} missing: ${missing.join(', ')}`);
  const methods = document.code_challenge_methods_supported;
  if (!Array.isArray(methods)) problems.push('no code_challenge_methods_supported: clients cannot tell that PKCE is supported (RFC 9700 §2.1.1)');
  else if (!methods.includes('S256')) problems.push(`code_challenge_methods_supported lists ${methods.map(String).join(', ') || 'nothing'}, not S256`);
  for (const field of ENDPOINTS) {
    const value = document[field];
    if (value === undefined) continue;
    let url: URL;
    try {
      url = new URL(String(value));
    } catch {
      problems.push(`${field} is not a URL: ${JSON.stringify(value)}`);
      continue;
    }
    if (url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname))) continue;
    problems.push(`${field} ${url.href} is not https`);
  }
  return problems;
}

/** RFC 8414 section 3.3: the metadata names the issuer asked for, its required fields, S256, and https endpoints. */
export const metadataProbe: AuditProbe = {
  id: 'metadata',
  title: 'server metadata correct and complete',
  rfc: 'RFC 8414 §3.3',
  category: 'metadata',
  threat: 'RFC 9700 §4.4 (mix-up); RFC 8414 §3.3',
  remedy: 'Serve metadata whose issuer is exactly the issuer, with the required fields, S256 and https endpoints.',
  async run(ctx) {
    const lookup = ctx.metadataLookup;
    if (!lookup) return skip('the metadata was not looked up');
    const redirected = lookup.attempts.filter((a) => a.status >= 300 && a.status < 400);
    if (!lookup.found) {
      const text = `no metadata for ${lookup.issuer}${lookup.given ? '' : ' (assumed issuer; give --issuer)'}: ${describeAttempts(lookup)}`;
      return redirected.length > 0 ? warn(text) : skip(text);
    }
    const problems = metadataProblems(lookup.found.document, lookup.issuer, lookup.found.kind === 'openid-configuration', lookup.given);
    const redirects = redirected.length > 0 ? `; before it, ${describeAttempts({ ...lookup, attempts: redirected })}` : '';
    if (problems.length > 0) return fail(`${lookup.found.url}: ${problems.join('; ')}${redirects}`);
    if (redirected.length > 0) return warn(`${lookup.found.url} is correct${redirects}`);
    return pass(`${lookup.found.url}: issuer ${lookup.issuer}, required fields present, S256 listed, endpoints https or loopback`);
  },
};
