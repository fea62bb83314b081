import { randomUUID } from 'node:crypto';
import { mustRefuse, resourceUrl, serverError, notTested, tokenDecision } from '../../protected-resource.js';
import { boundToken, presentBound, proofFor, resourceRequest } from '../../resource-dpop.js';
import { fail, pass, skip, warn, type AuditProbe } from '../../types.js';

/**
 * The resource's DPoP checks (RFC 9449 section 7.1, and section 4.3 for the proof), where the resource
 * takes DPoP: a DPoP-bound token from the audited server, presented with one thing wrong each.
 */
const common = { category: 'protected-resource', needsFlow: true } as const;

/** RFC 9449 section 7.2: a DPoP-bound token presented as a bearer token (no proof) is refused. */
export const resourceDpopAsBearerProbe: AuditProbe = {
  ...common,
  id: 'resource-dpop-as-bearer',
  title: 'a DPoP-bound token sent as Bearer is refused by the resource',
  rfc: 'RFC 9449 §7.2',
  threat: 'RFC 9449 §7.2 (downgrade to bearer: a stolen bound token used without its key)',
  remedy: 'when a token is DPoP-bound (cnf.jkt), refuse it under the Bearer scheme and without a proof',
  async run(ctx) {
    const found = await boundToken(ctx);
    return mustRefuse(await presentBound(ctx, found, { scheme: 'Bearer' }), 'a DPoP-bound token sent as Bearer, without a proof');
  },
};

/** RFC 9449 section 4.3 item 9: the proof's htu is the URL of this request. */
export const resourceDpopHtuProbe: AuditProbe = {
  ...common,
  id: 'resource-dpop-htu',
  title: 'a DPoP proof for another URL is refused by the resource',
  rfc: 'RFC 9449 §4.3',
  threat: 'RFC 9449 §11.1 (a proof captured at one URL replayed at another)',
  remedy: "compare the proof's htu with the request's URL (without query and fragment) and refuse a proof for another",
  async run(ctx) {
    const found = await boundToken(ctx);
    const other = new URL(resourceUrl(ctx));
    other.pathname = `${other.pathname.replace(/\/$/, '')}/oauthctl-audit-other`;
    return mustRefuse(await presentBound(ctx, found, { proof: await proofFor(ctx, found, { htu: other.href }) }), `a DPoP proof for ${other.href}`);
  },
};

/** RFC 9449 section 4.3 item 8: the proof's htm is the method of this request. */
export const resourceDpopHtmProbe: AuditProbe = {
  ...common,
  id: 'resource-dpop-htm',
  title: 'a DPoP proof for another method is refused by the resource',
  rfc: 'RFC 9449 §4.3',
  threat: 'RFC 9449 §11.1 (a proof captured for one method replayed with another)',
  remedy: "compare the proof's htm with the request's method and refuse a proof for another",
  async run(ctx) {
    const found = await boundToken(ctx);
    const htm = resourceRequest(ctx).method === 'DELETE' ? 'PUT' : 'DELETE';
    return mustRefuse(await presentBound(ctx, found, { proof: await proofFor(ctx, found, { htm }) }), `a DPoP proof for ${htm}`);
  },
};

/** RFC 9449 section 4.3 item 11 and section 7.1: a resource request's proof carries ath, the hash of this token. */
export const resourceDpopAthProbe: AuditProbe = {
  ...common,
  id: 'resource-dpop-ath',
  title: 'a DPoP proof whose ath is for another token is refused by the resource',
  rfc: 'RFC 9449 §7.1',
  threat: 'RFC 9449 §4.3 (a proof not tied to the token it goes with)',
  remedy: "check that the proof's ath is base64url(SHA-256) of the access token presented",
  async run(ctx) {
    const found = await boundToken(ctx);
    return mustRefuse(await presentBound(ctx, found, { proof: await proofFor(ctx, found, { accessToken: `${found.token}${randomUUID()}` }) }), 'a DPoP proof whose ath is the hash of another token');
  },
};

/** RFC 9449 section 11.1: a resource may refuse a proof it has seen (same jti); the check is optional, so taking it warns. */
export const resourceDpopReplayProbe: AuditProbe = {
  ...common,
  id: 'resource-dpop-replay',
  title: 'a replayed DPoP proof is refused by the resource',
  rfc: 'RFC 9449 §11.1',
  threat: 'RFC 9449 §11.1 (proof replay)',
  remedy: 'remember the jti of the proofs seen within their lifetime (iat window) and refuse one seen before',
  async run(ctx) {
    const found = await boundToken(ctx);
    const proof = await proofFor(ctx, found);
    const first = await presentBound(ctx, found, { proof });
    if (tokenDecision(first) !== 'accepted') return skip(`not tested: the DPoP-bound token with a fresh proof got HTTP ${first.status}`);
    const again = await presentBound(ctx, found, { proof });
    const decision = tokenDecision(again);
    if (decision === 'server-error') return fail(serverError(again, 'the same DPoP proof sent again'));
    if (decision === undefined) return skip(notTested(again));
    if (decision === 'accepted')
      return warn(
        `the same DPoP proof (same jti) was accepted twice (HTTP ${again.status}): a captured proof can be replayed with its token until its iat is too old (RFC 9449 section 11.1 makes the check optional)`,
      );
    return pass(`the same proof sent again: HTTP ${again.status}`);
  },
};

export const RESOURCE_DPOP_PROBES: readonly AuditProbe[] = [resourceDpopAsBearerProbe, resourceDpopHtuProbe, resourceDpopHtmProbe, resourceDpopAthProbe, resourceDpopReplayProbe];
