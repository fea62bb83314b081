import { FlowError } from '../../errors.js';
import type { AuthorizationServerMetadata } from '../../oauth/discovery.js';
import { issuerIdentifierProblem, type ProtectedResourceMetadata } from '../../oauth/resource-metadata.js';
import { discoverMetadata, type DiscoveredMetadata } from '../flows/endpoints.js';
import type { HttpClient } from '../http/http.js';
import { firstAnswerOf } from '../mcp/probe.js';
import { discoverResource, type Fetched, type Finding, type ResourceDiscovery } from './protected-resource.js';

/** One authorization server of the chain: where its metadata was, and what matters in it (or why it failed). */
export interface ServerLink {
  issuer: string;
  metadataUrl?: string;
  kind?: DiscoveredMetadata['kind'];
  metadata?: AuthorizationServerMetadata;
  /** What a client needs to know, in the metadata's own names (RFC 8414 section 2). */
  summary?: Record<string, unknown>;
}

/** The whole discovery chain of a resource (RFC 9728 -> RFC 8414) or of an issuer (RFC 8414 alone). */
export interface DiscoveryChain {
  input: string;
  kind: 'resource' | 'issuer';
  resource?: Omit<ResourceDiscovery, 'findings'>;
  servers: ServerLink[];
  fetched: Fetched[];
  findings: Finding[];
  /** No finding of level error. */
  ok: boolean;
}

/**
 * Walks the chain from a URL: as a protected resource when it answers 401 or publishes resource
 * metadata, else as an issuer. Every inconsistency found is a finding naming the section it breaks.
 */
export async function discoverChain(http: HttpClient, url: string): Promise<DiscoveryChain> {
  // An MCP server is asked as MCP clients ask it: a POST of initialize (src/client/mcp/probe.ts).
  const { answer, before } = await firstAnswerOf(http, url);
  const found = await discoverResource(http, url, answer);
  found.fetched.unshift(...before);
  if (found.metadata === undefined && found.probe.status !== 401) {
    const asIssuer = await serverLink(http, url);
    if (asIssuer.link.metadata !== undefined)
      return finish({ input: url, kind: 'issuer', servers: [asIssuer.link], fetched: [...asIssuer.fetched], findings: [...asIssuer.findings, ...serverFindings(asIssuer.link.metadata)], ok: true });
  }
  const { findings, ...resource } = found;
  const chain: DiscoveryChain = { input: url, kind: 'resource', resource, servers: [], fetched: [...found.fetched], findings: [...findings], ok: true };
  // An entry that is no issuer identifier is a finding already (discoverResource): never fetched.
  for (const issuer of (found.metadata?.authorization_servers ?? []).filter((s) => issuerIdentifierProblem(s) === undefined)) {
    const { link, fetched, findings: more } = await serverLink(http, issuer);
    chain.servers.push(link);
    chain.fetched.push(...fetched);
    chain.findings.push(...more);
    if (link.metadata) chain.findings.push(...serverFindings(link.metadata), ...pairFindings(found.metadata!, link.metadata));
  }
  return finish(chain);
}

function finish(chain: DiscoveryChain): DiscoveryChain {
  chain.ok = !chain.findings.some((f) => f.level === 'error');
  return chain;
}

/** RFC 8414 discovery of one issuer, the failure kept as a finding. */
async function serverLink(http: HttpClient, issuer: string): Promise<{ link: ServerLink; fetched: Fetched[]; findings: Finding[] }> {
  try {
    const d = await discoverMetadata(http, issuer);
    // Credentials sent to another host than the issuer's (RFC 9700 section 4.4, mix-up): the chain breaks
    // here as in every output (the text, --json's findings, the exit status), not only in a warning.
    const offIssuer = d.warnings.map((text): Finding => ({ level: 'error', text, rule: 'RFC 9700 section 4.4' }));
    return { link: { issuer, metadataUrl: d.url, kind: d.kind, metadata: d.metadata, summary: summarize(d.metadata) }, fetched: [{ url: d.url, status: 200 }], findings: offIssuer };
  } catch (err) {
    if (!(err instanceof FlowError)) throw err;
    return { link: { issuer }, fetched: [], findings: [{ level: 'error', text: err.message, rule: 'RFC 8414 section 3' }] };
  }
}

const list = (v: unknown): string[] | undefined => (Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : undefined);

/** What a client starting from a resource needs to know of its server. */
function summarize(m: AuthorizationServerMetadata): Record<string, unknown> {
  const out: Record<string, unknown> = {
    code_challenge_methods_supported: list(m.code_challenge_methods_supported),
    grant_types_supported: list(m.grant_types_supported) ?? ['authorization_code', 'implicit'],
    token_endpoint_auth_methods_supported: list(m.token_endpoint_auth_methods_supported) ?? ['client_secret_basic'],
    registration_endpoint: m.registration_endpoint,
    client_id_metadata_document_supported: m.client_id_metadata_document_supported === true,
    dpop_signing_alg_values_supported: list(m.dpop_signing_alg_values_supported),
    pushed_authorization_request_endpoint: m.pushed_authorization_request_endpoint,
    require_pushed_authorization_requests: m.require_pushed_authorization_requests === true,
    authorization_response_iss_parameter_supported: m.authorization_response_iss_parameter_supported === true,
    scopes_supported: list(m.scopes_supported),
  };
  for (const key of Object.keys(out)) if (out[key] === undefined) delete out[key];
  return out;
}

/** What a server's metadata lacks for a client that starts from a resource (MCP authorization, RFC 9700). */
function serverFindings(m: AuthorizationServerMetadata): Finding[] {
  const out: Finding[] = [];
  const methods = list(m.code_challenge_methods_supported);
  if (methods === undefined) out.push({ level: 'warn', text: `${m.issuer} does not say which PKCE methods it supports (code_challenge_methods_supported)`, rule: 'RFC 8414 section 2' });
  else if (!methods.includes('S256'))
    out.push({ level: 'error', text: `${m.issuer} does not support PKCE with S256 (code_challenge_methods_supported: ${methods.join(', ') || 'none'})`, rule: 'RFC 9700 section 2.1.1' });
  if (m.registration_endpoint === undefined && m.client_id_metadata_document_supported !== true) {
    out.push({ level: 'warn', text: `${m.issuer} offers neither registration_endpoint nor client ID metadata documents: a client needs a client id given by hand`, rule: 'RFC 7591 section 3' });
  }
  const grants = list(m.grant_types_supported);
  if (grants !== undefined && !grants.includes('authorization_code'))
    out.push({ level: 'error', text: `${m.issuer} does not list authorization_code in grant_types_supported`, rule: 'RFC 8414 section 2' });
  return out;
}

/** Whether the resource and its server agree: scopes, DPoP. */
function pairFindings(r: ProtectedResourceMetadata, m: AuthorizationServerMetadata): Finding[] {
  const out: Finding[] = [];
  const serverScopes = list(m.scopes_supported);
  const missing = serverScopes === undefined ? [] : (r.scopes_supported ?? []).filter((s) => !serverScopes.includes(s));
  if (missing.length > 0) out.push({ level: 'warn', text: `the resource's scopes ${missing.join(' ')} are not in ${m.issuer}'s scopes_supported`, rule: 'RFC 9728 section 2' });
  if (r.dpop_bound_access_tokens_required === true && list(m.dpop_signing_alg_values_supported) === undefined) {
    out.push({ level: 'error', text: `the resource requires DPoP-bound tokens but ${m.issuer} announces no dpop_signing_alg_values_supported`, rule: 'RFC 9449 section 5.1' });
  }
  if (r.bearer_methods_supported !== undefined && !r.bearer_methods_supported.includes('header')) {
    out.push({
      level: 'warn',
      text: `the resource does not take tokens in the Authorization header (bearer_methods_supported: ${r.bearer_methods_supported.join(', ') || 'none'})`,
      rule: 'RFC 6750 section 2.1',
    });
  }
  return out;
}
