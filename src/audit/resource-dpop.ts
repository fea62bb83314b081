import { createDpopProof, type DpopKey, type DpopProofInput } from '../oauth/dpop.js';
import { parseWwwAuthenticate } from '../oauth/www-authenticate.js';
import type { HttpResponse } from '../client/http/http.js';
import type { AuditContext } from './context.js';
import { describeExchange, issuedTokens } from './exchanges.js';
import { dpopKeyFor } from './dpop-requests.js';
import { ProbeFailure, ProbeSkip } from './probe-errors.js';
import { baselineScopes, mcpInitialize, presentsAsMcp, resourceDiscovery, resourceUrl, tokenDecision, workingToken } from './protected-resource.js';

/**
 * A DPoP-bound access token for the audited resource (RFC 9449 section 7), and how to present it: the
 * probes of the resource's DPoP checks share one per audit. The resource takes DPoP when its metadata
 * says so (RFC 9728 section 2: dpop_signing_alg_values_supported, dpop_bound_access_tokens_required) or
 * its 401 challenges with the DPoP scheme (RFC 9449 section 7.1).
 */
export interface BoundToken {
  token: string;
  key: DpopKey;
  /** The resource's DPoP-Nonce, when it asked for one (RFC 9449 section 9). */
  nonce?: string | undefined;
}

const bound = new WeakMap<AuditContext, Promise<BoundToken>>();

export function boundToken(ctx: AuditContext): Promise<BoundToken> {
  let found = bound.get(ctx);
  if (!found) bound.set(ctx, (found = obtainBoundToken(ctx)));
  return found;
}

/** Whether the resource says it takes DPoP, and why (undefined when nothing says so). */
async function takesDpop(ctx: AuditContext): Promise<string | undefined> {
  const metadata = (await resourceDiscovery(ctx)).metadata as Record<string, unknown> | undefined;
  if (metadata?.dpop_bound_access_tokens_required === true) return 'its metadata has dpop_bound_access_tokens_required';
  const algs = metadata?.dpop_signing_alg_values_supported;
  if (Array.isArray(algs) && algs.length > 0) {
    if (!algs.includes('ES256')) throw new ProbeSkip(`not tested: the resource's DPoP algorithms (${algs.join(', ')}) do not include ES256, the audit's`);
    return 'its metadata lists dpop_signing_alg_values_supported';
  }
  const url = resourceUrl(ctx);
  const res = presentsAsMcp(ctx) ? await mcpInitialize(ctx, url) : await ctx.http.request(url, { headers: { accept: 'application/json' } });
  if (parseWwwAuthenticate(res.headers['www-authenticate'] ?? '').some((c) => c.scheme.toLowerCase() === 'dpop')) return 'its 401 challenges with the DPoP scheme';
  return undefined;
}

async function obtainBoundToken(ctx: AuditContext): Promise<BoundToken> {
  // The baseline first: it finds how the resource is called (a GET, or an MCP POST).
  await workingToken(ctx);
  if ((await takesDpop(ctx)) === undefined)
    throw new ProbeSkip('not tested: the resource does not take DPoP (no dpop_signing_alg_values_supported or dpop_bound_access_tokens_required in its metadata, no DPoP challenge)');
  let key: DpopKey;
  try {
    key = await dpopKeyFor(ctx);
  } catch (err) {
    if (err instanceof ProbeSkip) throw new ProbeSkip(`not tested: no DPoP-bound token can be had from the authorization server (${err.message})`);
    throw err;
  }
  const resource = resourceUrl(ctx);
  const scopes = await baselineScopes(ctx);
  let token: string;
  try {
    const issued = await ctx.obtainCode({ scopes, extraParams: { resource } });
    const redeem = async (nonce?: string) => ctx.redeem(issued, { resource }, undefined, { headers: { dpop: await createDpopProof(key, { htm: 'POST', htu: ctx.config.tokenEndpoint, nonce }) } });
    let exchange = await redeem();
    // RFC 9449 section 8: the server may ask for its nonce; the code is still unused then.
    if (exchange.error?.error === 'use_dpop_nonce' && exchange.headers['dpop-nonce'] !== undefined) exchange = await redeem(exchange.headers['dpop-nonce']);
    if (!issuedTokens(exchange)) throw new ProbeSkip(`not tested: no DPoP-bound token for ${resource} (${describeExchange(exchange)})`);
    const tokens = exchange.json as { access_token: string; token_type?: string };
    if (tokens.token_type?.toLowerCase() !== 'dpop')
      throw new ProbeSkip(`not tested: the authorization server issued token_type ${JSON.stringify(tokens.token_type)} to a request with a DPoP proof, not a DPoP-bound token`);
    token = tokens.access_token;
  } catch (err) {
    if (err instanceof ProbeFailure) throw new ProbeSkip(`not tested: no DPoP-bound token could be had (${err.message})`);
    throw err;
  }
  const found: BoundToken = { token, key };
  let res = await presentBound(ctx, found);
  // RFC 9449 section 9: a resource may ask for a nonce of its own.
  if (res.status === 401 && res.headers['dpop-nonce'] !== undefined) {
    found.nonce = res.headers['dpop-nonce'];
    res = await presentBound(ctx, found);
  }
  if (tokenDecision(res) !== 'accepted') throw new ProbeSkip(`not tested: the DPoP-bound token with a valid proof is refused there too (HTTP ${res.status}): nothing to compare with`);
  return found;
}

/** The request the resource is called with: its method and URL (what htm and htu name). */
export function resourceRequest(ctx: AuditContext): { method: string; url: string } {
  return { method: presentsAsMcp(ctx) ? 'POST' : 'GET', url: resourceUrl(ctx) };
}

/** A proof for the resource's request and the bound token, with claims changed by `change` (another htu, htm, ath ...). */
export function proofFor(ctx: AuditContext, found: BoundToken, change: Partial<DpopProofInput> = {}): Promise<string> {
  const { method, url } = resourceRequest(ctx);
  return createDpopProof(found.key, { htm: method, htu: url, nonce: found.nonce, accessToken: found.token, ...change });
}

/**
 * The bound token sent as a client sends it (RFC 9449 section 7.1: `Authorization: DPoP` and a proof),
 * or with `scheme` Bearer and no proof; `proof` replaces the valid one.
 */
export async function presentBound(ctx: AuditContext, found: BoundToken, options: { scheme?: 'DPoP' | 'Bearer'; proof?: string } = {}): Promise<HttpResponse> {
  const scheme = options.scheme ?? 'DPoP';
  const headers: Record<string, string> = { authorization: `${scheme} ${found.token}` };
  if (scheme === 'DPoP') headers.dpop = options.proof ?? (await proofFor(ctx, found));
  const { url } = resourceRequest(ctx);
  if (presentsAsMcp(ctx)) return mcpInitialize(ctx, url, undefined, headers);
  return ctx.http.request(url, { headers: { accept: 'application/json', ...headers } });
}
