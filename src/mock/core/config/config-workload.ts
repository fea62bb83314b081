import { isJsonObject } from '../../../oauth/json.js';

/**
 * A workload identity issuer the JWT bearer grant trusts (RFC 7523 section 2.1, workload identity
 * federation): a platform (a cloud, a CI system, Kubernetes) whose JWTs a workload presents as its
 * grant. Its keys are given inline (`jwks`), fetched from `jwks_uri`, or those of a named issuer of this server.
 */
export interface WorkloadIssuer {
  issuer: string;
  jwks?: { keys: Record<string, unknown>[] };
  jwksUri?: string;
}

const SHAPE = 'must be an array of {"issuer": URL, "jwks": {"keys": [...]}}, {"issuer": URL, "jwks_uri": URL} or {"issuer": a named issuer of this server}';

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hash === '' && url.username === '';
  } catch {
    return false;
  }
}

/** Config `workload_issuers`, checked at start; each problem names its field. */
export function validateWorkloadIssuers(value: unknown, fail: (field: string, message: string) => void, issuerNames: readonly string[] = []): WorkloadIssuer[] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) {
    fail('workload_issuers', SHAPE);
    return [];
  }
  const out: WorkloadIssuer[] = [];
  value.forEach((w, i) => {
    const field = `workload_issuers[${i}]`;
    if (!isJsonObject(w)) return fail(field, SHAPE);
    for (const key of Object.keys(w)) if (!['issuer', 'jwks', 'jwks_uri'].includes(key) && !key.startsWith('//')) return fail(`${field}.${key}`, 'unknown field (known: issuer, jwks, jwks_uri)');
    if (typeof w.issuer !== 'string' || w.issuer === '') return fail(`${field}.issuer`, "must be the issuer (the JWTs' iss) as a non-empty string");
    if (out.some((o) => o.issuer === w.issuer)) return fail(`${field}.issuer`, `duplicate issuer ${JSON.stringify(w.issuer)}`);
    // A named issuer of this server (config issuers) signs with its own keys.
    if (issuerNames.includes(w.issuer)) {
      if (w.jwks !== undefined || w.jwks_uri !== undefined) return fail(field, "a named issuer signs with the mock's own keys: leave jwks and jwks_uri out");
      return void out.push({ issuer: w.issuer });
    }
    if ((w.jwks === undefined) === (w.jwks_uri === undefined)) return fail(field, "give the issuer's keys: jwks or jwks_uri (one of them), or name one of this server's issuers");
    if (w.jwks !== undefined && (!isJsonObject(w.jwks) || !Array.isArray(w.jwks.keys) || !w.jwks.keys.every(isJsonObject)))
      return fail(`${field}.jwks`, 'must be a JWK Set: {"keys": [...]} (RFC 7517 section 5)');
    if (w.jwks_uri !== undefined && !isHttpUrl(w.jwks_uri)) return fail(`${field}.jwks_uri`, 'must be an http(s) URL');
    out.push({ issuer: w.issuer, ...(w.jwks !== undefined ? { jwks: w.jwks as { keys: Record<string, unknown>[] } } : {}), ...(typeof w.jwks_uri === 'string' ? { jwksUri: w.jwks_uri } : {}) });
  });
  return out;
}
