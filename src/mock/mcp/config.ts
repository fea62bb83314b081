import { isJsonObject } from '../../oauth/json.js';
import { isValidScopeToken } from '../../oauth/scope.js';

/** The MCP authorization revisions the mock's MCP endpoint can behave as. */
export const MCP_REVISIONS = ['2025-11-25', '2025-03-26'] as const;
export type McpRevision = (typeof MCP_REVISIONS)[number];

/**
 * Where the endpoint's protected resource metadata (RFC 9728) is: `path` inserted after the
 * well-known name (section 3.1), at the `root` well-known URL, or only in the 401's `resource_metadata`
 * (`header`, at a custom path).
 */
export const MCP_METADATA_LOCATIONS = ['path', 'root', 'header'] as const;
export type McpMetadataLocation = (typeof MCP_METADATA_LOCATIONS)[number];

/** How MCP clients get a client_id: either way, Client ID Metadata Documents only, or dynamic registration only. */
export const MCP_CLIENT_MODES = ['any', 'cimd', 'registration'] as const;
export type McpClientMode = (typeof MCP_CLIENT_MODES)[number];

export interface McpConfig {
  /** Whether `{base_url}/mcp` answers at all. */
  enabled: boolean;
  /** The scopes every request needs: the 401's `scope` (MCP 2025-11-25, scope selection). */
  scopes: string[];
  /** More scopes a tool needs (step-up: 403 insufficient_scope, RFC 6750 section 3.1). */
  tools: Record<string, string[]>;
  resourceMetadata: McpMetadataLocation;
  clients: McpClientMode;
  revision: McpRevision;
  /** 2025-03-26 only: whether the authorization server's metadata is at the origin (else the default endpoints only). */
  authorizationServerMetadata: boolean;
  /** `Mcp-Session-Id` (Streamable HTTP session management); off: stateless. */
  sessions: boolean;
  /** How a request is answered: one JSON body, or an SSE stream with the response as its one event. */
  response: 'json' | 'sse';
  /** The revisions it speaks (config mcp.protocol_versions), newest first. */
  protocolVersions: string[];
  /** The identity providers whose ID-JAGs the JWT bearer grant takes (RFC 7523 section 2.1; config mcp.identity_providers). */
  identityProviders: IdentityProvider[];
  /**
   * The named issuer the endpoint has moved to (POST /_mock/mcp/authorization-server, SEP-2352): its
   * metadata names that issuer and only that issuer's tokens are taken; absent: the root issuer.
   */
  authorizationServer?: string;
}

/** A trusted identity provider: a named issuer of this server (its keys are the mock's), or an issuer URL with its keys. */
export type IdentityProvider = { issuer: string; named: true } | { issuer: string; named: false; jwks?: { keys: Record<string, unknown>[] }; jwksUri?: string };

export const MCP_TOOL_NAMES = ['whoami', 'echo', 'region_echo', 'greet'] as const;

/** The revisions the endpoint speaks, newest first (config mcp.protocol_versions): 2026-07-28 stateless, the others with initialize. */
export const MCP_PROTOCOL_VERSIONS = ['2026-07-28', '2025-11-25', '2025-06-18', '2025-03-26'] as const;

export const DEFAULT_MCP_CONFIG: McpConfig = {
  enabled: true,
  scopes: ['photo'],
  tools: {},
  resourceMetadata: 'path',
  clients: 'any',
  revision: '2025-11-25',
  authorizationServerMetadata: true,
  sessions: true,
  response: 'json',
  identityProviders: [],
  protocolVersions: [...MCP_PROTOCOL_VERSIONS],
};

const KEYS = ['enabled', 'scopes', 'tool_scopes', 'resource_metadata', 'clients', 'revision', 'authorization_server_metadata', 'sessions', 'response', 'identity_providers', 'protocol_versions'];

type Fail = (field: string, message: string) => void;

function oneOf<T extends string>(input: Record<string, unknown>, key: string, choices: readonly T[], fallback: T, fail: Fail): T {
  const value = input[key];
  if (value === undefined) return fallback;
  if (typeof value === 'string' && (choices as readonly string[]).includes(value)) return value as T;
  fail(`mcp.${key}`, `must be one of ${choices.map((c) => JSON.stringify(c)).join(', ')}`);
  return fallback;
}

function flag(input: Record<string, unknown>, key: string, fallback: boolean, fail: Fail): boolean {
  const value = input[key];
  if (value === undefined) return fallback;
  if (typeof value === 'boolean') return value;
  fail(`mcp.${key}`, 'must be true or false');
  return fallback;
}

function scopeList(value: unknown, field: string, known: ReadonlySet<string>, fail: Fail): string[] {
  if (!Array.isArray(value) || value.some((s) => typeof s !== 'string' || !isValidScopeToken(s))) {
    fail(field, 'must be an array of scope tokens (RFC 6749 section 3.3), [] for none');
    return [];
  }
  const unknown = (value as string[]).find((s) => !known.has(s));
  if (unknown !== undefined) fail(field, `scope ${JSON.stringify(unknown)} is not one of the server's scopes (config scopes)`);
  return [...new Set(value as string[])];
}

const httpUrl = (value: unknown): value is string => {
  if (typeof value !== 'string') return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'https:' || url.protocol === 'http:') && url.hash === '' && url.username === '';
  } catch {
    return false;
  }
};

function identityProviders(value: unknown, issuerNames: readonly string[], fail: Fail): IdentityProvider[] {
  const shape = 'must be an array of {"issuer": a named issuer of this server} or {"issuer": URL, "jwks": {"keys": [...]} or "jwks_uri": URL}';
  if (!Array.isArray(value)) {
    fail('mcp.identity_providers', shape);
    return [];
  }
  const out: IdentityProvider[] = [];
  value.forEach((p, i) => {
    const field = `mcp.identity_providers[${i}]`;
    if (!isJsonObject(p)) return fail(field, shape);
    for (const key of Object.keys(p)) if (!['issuer', 'jwks', 'jwks_uri'].includes(key) && !key.startsWith('//')) return fail(`${field}.${key}`, 'unknown field (known: issuer, jwks, jwks_uri)');
    if (typeof p.issuer === 'string' && issuerNames.includes(p.issuer)) {
      if (p.jwks !== undefined || p.jwks_uri !== undefined) return fail(field, "a named issuer signs with the mock's own keys: leave jwks and jwks_uri out");
      return void out.push({ issuer: p.issuer, named: true });
    }
    if (!httpUrl(p.issuer)) return fail(`${field}.issuer`, `must be the name of a named issuer (${issuerNames.join(', ') || 'none configured'}) or an issuer URL`);
    if ((p.jwks === undefined) === (p.jwks_uri === undefined)) return fail(field, "give the identity provider's keys: jwks or jwks_uri (one of them)");
    if (p.jwks !== undefined && (!isJsonObject(p.jwks) || !Array.isArray(p.jwks.keys) || !p.jwks.keys.every(isJsonObject)))
      return fail(`${field}.jwks`, 'must be a JWK Set: {"keys": [...]} (RFC 7517 section 5)');
    if (p.jwks_uri !== undefined && !httpUrl(p.jwks_uri)) return fail(`${field}.jwks_uri`, 'must be an http(s) URL');
    out.push({ issuer: p.issuer, named: false, ...(p.jwks ? { jwks: p.jwks as { keys: Record<string, unknown>[] } } : {}), ...(typeof p.jwks_uri === 'string' ? { jwksUri: p.jwks_uri } : {}) });
  });
  return out;
}

function protocolVersions(value: unknown, fail: Fail): string[] {
  if (value === undefined) return [...MCP_PROTOCOL_VERSIONS];
  const known: readonly string[] = MCP_PROTOCOL_VERSIONS;
  if (!Array.isArray(value) || value.length === 0 || value.some((v) => typeof v !== 'string' || !known.includes(v))) {
    fail('mcp.protocol_versions', `must be a non-empty array of the revisions the endpoint speaks: ${MCP_PROTOCOL_VERSIONS.map((v) => JSON.stringify(v)).join(', ')}`);
    return [...MCP_PROTOCOL_VERSIONS];
  }
  // Kept newest first, as the revisions are listed.
  return MCP_PROTOCOL_VERSIONS.filter((v) => (value as string[]).includes(v));
}

/** The `mcp` object of the configuration, checked at start: each error names its field (`mcp.tool_scopes.echo`). */
export function validateMcpConfig(input: unknown, scopes: ReadonlySet<string>, fail: Fail, issuerNames: readonly string[] = []): McpConfig {
  if (input === undefined) return { ...DEFAULT_MCP_CONFIG, scopes: DEFAULT_MCP_CONFIG.scopes.filter((s) => scopes.has(s)) };
  if (!isJsonObject(input)) {
    fail('mcp', 'must be an object: {"scopes", "tool_scopes", "resource_metadata", "clients", "revision", "sessions", ...}');
    return DEFAULT_MCP_CONFIG;
  }
  for (const key of Object.keys(input)) if (!KEYS.includes(key) && !key.startsWith('//')) fail(`mcp.${key}`, `unknown field (known: ${KEYS.join(', ')})`);
  const tools: Record<string, string[]> = {};
  if (input.tool_scopes !== undefined) {
    if (!isJsonObject(input.tool_scopes)) fail('mcp.tool_scopes', 'must be an object: tool name -> the scopes it needs, as {"whoami": ["profile"]}');
    else
      for (const [name, list] of Object.entries(input.tool_scopes)) {
        if (name.startsWith('//')) continue;
        if (!(MCP_TOOL_NAMES as readonly string[]).includes(name)) fail(`mcp.tool_scopes.${name}`, `no such tool (the tools: ${MCP_TOOL_NAMES.join(', ')})`);
        else tools[name] = scopeList(list, `mcp.tool_scopes.${name}`, scopes, fail);
      }
  }
  const revision = oneOf(input, 'revision', MCP_REVISIONS, DEFAULT_MCP_CONFIG.revision, fail);
  const resourceMetadata = oneOf(input, 'resource_metadata', MCP_METADATA_LOCATIONS, DEFAULT_MCP_CONFIG.resourceMetadata, fail);
  if (revision === '2025-03-26' && input.resource_metadata !== undefined) fail('mcp.resource_metadata', 'the 2025-03-26 revision has no protected resource metadata; leave it out');
  const authorizationServerMetadata = flag(input, 'authorization_server_metadata', true, fail);
  if (revision !== '2025-03-26' && input.authorization_server_metadata !== undefined)
    fail('mcp.authorization_server_metadata', 'applies to revision "2025-03-26" only (later revisions find the server through the resource metadata)');
  return {
    enabled: flag(input, 'enabled', true, fail),
    scopes: input.scopes === undefined ? DEFAULT_MCP_CONFIG.scopes.filter((s) => scopes.has(s)) : scopeList(input.scopes, 'mcp.scopes', scopes, fail),
    tools,
    resourceMetadata,
    clients: oneOf(input, 'clients', MCP_CLIENT_MODES, DEFAULT_MCP_CONFIG.clients, fail),
    revision,
    authorizationServerMetadata,
    sessions: flag(input, 'sessions', true, fail),
    response: oneOf(input, 'response', ['json', 'sse'] as const, DEFAULT_MCP_CONFIG.response, fail),
    identityProviders: input.identity_providers === undefined ? [] : identityProviders(input.identity_providers, issuerNames, fail),
    protocolVersions: protocolVersions(input.protocol_versions, fail),
  };
}
