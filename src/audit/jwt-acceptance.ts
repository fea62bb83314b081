import { decodeJwtUnverified } from '../oauth/jwt.js';
import { requestObjectClaims } from '../oauth/request-object.js';
import { requireJwtClient } from './client-assertions.js';
import { type AuditContext } from './context.js';
import { describeExchange, issuedTokens } from './exchanges.js';
import { forgeJwt, signedJwt, type Forgery } from './forged-jws.js';
import { codeOf } from './outcomes.js';
import { refusal } from './probes/pkce/pkce-required.js';
import { ProbeSkip } from './probe-errors.js';
import { fail, pass, warn, type AuditProbe, type ProbeOutcome } from './types.js';

/** A JWT of the client as a probe changes it: forged one way, or signed properly over changed claims. */
export type JwtChange = { forgery: Forgery } | { claims: (claims: Record<string, unknown>, now: number) => Record<string, unknown> };

interface VariantProbe {
  id: string;
  title: string;
  rfc: string;
  threat: string;
  remedy: string;
  change: JwtChange;
  /** What acceptance means: a failure (the default), or a warning where the specification only advises. */
  accepted?: 'fail' | 'warn';
}

function needsPublicKey(ctx: AuditContext, change: JwtChange): void {
  if ('forgery' in change && change.forgery === 'hs256-public-key' && ctx.client.signingKey === undefined)
    throw new ProbeSkip('algorithm confusion needs a client with a public key (private_key_jwt and --signing-key)');
}

/** The JWT for `claims`, changed as the probe says. */
function changed(ctx: AuditContext, claims: Record<string, unknown>, change: JwtChange, typ?: string): string {
  if ('forgery' in change) return forgeJwt(ctx.client, claims, change.forgery, typ);
  return signedJwt(ctx.client, change.claims({ ...claims }, Math.floor(Date.now() / 1000)), typ);
}

/**
 * A probe of the server's acceptance of the client's assertions (RFC 7523 section 3): a code redeemed
 * with the changed assertion must get no tokens.
 */
export function clientAssertionProbe(v: VariantProbe): AuditProbe {
  return {
    id: v.id,
    title: v.title,
    rfc: v.rfc,
    category: 'jwt',
    threat: v.threat,
    remedy: v.remedy,
    needsFlow: true,
    async run(ctx) {
      requireJwtClient(ctx);
      needsPublicKey(ctx, v.change);
      const claims = decodeJwtUnverified(await ctx.clientAssertion())?.claims ?? {};
      const exchange = await ctx.redeem(await ctx.obtainCode(), {}, undefined, { clientAssertion: changed(ctx, claims, v.change) });
      if (issuedTokens(exchange)) return verdict(v, 'tokens were issued for it');
      return pass(`refused: ${describeExchange(exchange)}`);
    },
  };
}

/**
 * A probe of the server's acceptance of the client's request objects (RFC 9101 section 6): an
 * authorization request whose request object is changed must get no code.
 */
export function requestObjectProbe(v: VariantProbe): AuditProbe {
  return {
    id: v.id,
    title: v.title,
    rfc: v.rfc,
    category: 'jwt',
    threat: v.threat,
    remedy: v.remedy,
    needsFlow: false,
    async run(ctx) {
      const m = ctx.metadata;
      if (m?.request_parameter_supported !== true && !Array.isArray(m?.request_object_signing_alg_values_supported))
        throw new ProbeSkip('the metadata does not advertise request objects (request_parameter_supported)');
      if (ctx.client.signingKey === undefined) throw new ProbeSkip('request objects are signed with the client key: give --signing-key FILE');
      const outcome = await ctx.authorize({ rawUrl: requestObjectUrl(ctx, (claims) => changed(ctx, claims, v.change, 'oauth-authz-req+jwt')) });
      if (codeOf(outcome) !== undefined) return verdict(v, 'it got a code');
      return pass(`refused: ${refusal(outcome) ?? 'no code'}`);
    },
  };
}

/**
 * An authorization request by value (RFC 9101 section 5.1): the audit's own request as the request
 * object's claims, encoded by `encode` (signed, changed or unsigned), beside client_id, response_type
 * and scope in the URL (section 5: what OAuth requires in the query).
 */
export function requestObjectUrl(ctx: AuditContext, encode: (claims: Record<string, unknown>) => string): string {
  const pkce = ctx.usesPkce ? ctx.freshPkce() : null;
  const params = new URL(ctx.authorizationUrl({ pkce })).searchParams;
  const claims = requestObjectClaims(params, ctx.config.clientId, ctx.issuer ?? new URL(ctx.config.authorizationEndpoint).origin, Math.floor(Date.now() / 1000));
  const url = new URL(ctx.config.authorizationEndpoint);
  url.searchParams.set('client_id', ctx.config.clientId);
  url.searchParams.set('response_type', 'code');
  if (params.has('scope')) url.searchParams.set('scope', params.get('scope') ?? '');
  url.searchParams.set('request', encode(claims));
  return url.href;
}

function verdict(v: VariantProbe, what: string): ProbeOutcome {
  return (v.accepted ?? 'fail') === 'warn' ? warn(`accepted: ${what}`) : fail(`accepted: ${what}`);
}
