import { FlowError, UsageError } from '../../errors.js';
import { decodeJwtUnverified } from '../../oauth/jwt.js';
import type { CachedTokens } from '../../store/token-cache.js';

/** `token --format`: how a token is handed to another program. */
export const TOKEN_FORMATS = ['bare', 'header', 'json', 'exec-credential'] as const;
export type TokenFormat = (typeof TOKEN_FORMATS)[number];

/** The ExecCredential API versions kubectl reads (v1 from kubectl 1.22; v1beta1 from 1.11, with interactiveMode from 1.22). */
export const EXEC_API_VERSIONS = ['client.authentication.k8s.io/v1', 'client.authentication.k8s.io/v1beta1'] as const;
export type ExecApiVersion = (typeof EXEC_API_VERSIONS)[number];
export const EXEC_TOKENS = ['id_token', 'access_token'] as const;
export type ExecToken = (typeof EXEC_TOKENS)[number];

export interface ExecCredentialOptions {
  /** KUBERNETES_EXEC_INFO, as kubectl sets it. */
  execInfo?: string | undefined;
  /** --exec-api-version, used when kubectl does not say. */
  apiVersion?: string | undefined;
  token: ExecToken;
}

/**
 * The API version of the ExecCredential to print: the one kubectl asks for in KUBERNETES_EXEC_INFO
 * (an ExecCredential whose spec it fills), else --exec-api-version, else v1beta1, which every kubectl
 * since 1.11 reads.
 */
export function execApiVersion(options: ExecCredentialOptions): ExecApiVersion {
  let wanted = options.apiVersion;
  if (options.execInfo !== undefined && options.execInfo !== '') {
    let info: unknown;
    try {
      info = JSON.parse(options.execInfo);
    } catch {
      info = undefined;
    }
    const fromKubectl = typeof info === 'object' && info !== null ? (info as { apiVersion?: unknown }).apiVersion : undefined;
    if (typeof fromKubectl !== 'string') throw new UsageError('KUBERNETES_EXEC_INFO is not an ExecCredential with an apiVersion', 'unset it, or let kubectl set it');
    wanted = fromKubectl;
  }
  wanted ??= 'client.authentication.k8s.io/v1beta1';
  if (!(EXEC_API_VERSIONS as readonly string[]).includes(wanted)) {
    throw new UsageError(`ExecCredential API version ${JSON.stringify(wanted)} is not supported`, `use ${EXEC_API_VERSIONS.join(' or ')}`);
  }
  return wanted as ExecApiVersion;
}

/** The `exp` of an ID token (a JWT), in seconds; undefined when it has none. */
export function idTokenExpiry(idToken: string): number | undefined {
  const exp = decodeJwtUnverified(idToken)?.claims.exp;
  return typeof exp === 'number' ? exp : undefined;
}

const rfc3339 = (seconds: number) => new Date(seconds * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** True for a token bound to a DPoP key (RFC 9449 section 5): it is useless without a proof made for each request. */
export function isDpopBound(entry: CachedTokens): boolean {
  return entry.token_type?.toLowerCase() === 'dpop' || entry.client_keys?.dpop_jwk !== undefined;
}

/** The text of `token --format F` for a valid cached login (bare is handled by the caller, with its escaping). */
export function formatToken(format: Exclude<TokenFormat, 'bare'>, entry: CachedTokens, exec?: ExecCredentialOptions, json?: TokenJsonContext): string {
  if (format === 'header') {
    if (isDpopBound(entry)) {
      throw new UsageError('this token is DPoP-bound: a header alone cannot carry it, each request needs a DPoP proof of its own (RFC 9449)', 'use oauthctl call URL, which makes the proofs');
    }
    // RFC 6750 section 2.1: a bearer token is a b64token; anything else (a line break above all) would forge header lines.
    if (!/^[A-Za-z0-9\-._~+/]+=*$/.test(entry.access_token)) {
      throw new FlowError('the cached access token is not a b64token (RFC 6750 section 2.1), so it cannot go into a header line', 'use --format json, which escapes it');
    }
    return `Authorization: Bearer ${entry.access_token}\n`;
  }
  if (format === 'json') return `${JSON.stringify(tokenJson(entry, json ?? { refreshed: false, nowMs: Date.now() }), null, 2)}\n`;
  return `${JSON.stringify(execCredential(entry, exec ?? { token: 'id_token' }), null, 2)}\n`;
}

/** What `token --format json` (and its older spelling `--json`) adds to the cached entry: whether it was refreshed, the clock, a DPoP key's thumbprint. */
export interface TokenJsonContext {
  refreshed: boolean;
  nowMs: number;
  /** RFC 9449 section 10: the thumbprint of the key a DPoP-bound token is bound to. */
  dpopJkt?: string;
}

/**
 * The one JSON shape of `token --format json` and `token --json`: the expiry both as seconds since
 * the epoch (`expires_at`, with `expires_in` from now) and in RFC 3339 (`expiry`, as Go's oauth2.Token
 * and git credential helpers read it), the scope both as granted (`scope`) and as a list (`scopes`).
 */
export function tokenJson(entry: CachedTokens, context: TokenJsonContext): Record<string, unknown> {
  const expires = entry.expires_at !== undefined && entry.expires_at > 0 ? entry.expires_at : undefined;
  return {
    access_token: entry.access_token,
    token_type: entry.token_type ?? 'Bearer',
    ...(context.dpopJkt !== undefined && { dpop_jkt: context.dpopJkt }),
    ...(expires !== undefined && { expires_at: expires, expires_in: Math.max(0, expires - Math.floor(context.nowMs / 1000)), expiry: rfc3339(expires) }),
    ...(entry.scope !== undefined && { scope: entry.scope }),
    scopes: entry.scope?.split(' ').filter(Boolean) ?? [],
    // RFC 9396 section 7: what the server granted, as it said it.
    ...(entry.authorization_details !== undefined && { authorization_details: entry.authorization_details }),
    refreshed: context.refreshed,
  };
}

/** A Kubernetes ExecCredential (client.authentication.k8s.io) with the ID token or the access token, and its expiry. */
function execCredential(entry: CachedTokens, exec: ExecCredentialOptions): object {
  const apiVersion = execApiVersion(exec);
  let token: string;
  let expiry: number | undefined;
  if (exec.token === 'id_token') {
    if (entry.id_token === undefined) {
      throw new UsageError('no ID token is cached for this login (was openid in the scope?)', 'log in with scope openid, or give --exec-token access_token');
    }
    token = entry.id_token;
    expiry = idTokenExpiry(entry.id_token);
  } else {
    token = entry.access_token;
    expiry = entry.expires_at !== undefined && entry.expires_at > 0 ? entry.expires_at : undefined;
  }
  return {
    kind: 'ExecCredential',
    apiVersion,
    status: { token, ...(expiry !== undefined && { expirationTimestamp: rfc3339(expiry) }) },
  };
}
