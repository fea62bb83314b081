import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 6749 section 4.1.2.1: an error response carries the state the client sent. */
export const authorizeErrorStateProbe: AuditProbe = {
  id: 'authorize-error-state',
  title: 'an error redirect carries the state back',
  rfc: 'RFC 6749 §4.1.2.1',
  category: 'authorization-endpoint',
  threat: 'RFC 9700 §4.7 (CSRF: the client cannot match an error to its request)',
  remedy: 'Put the request state in every error redirect.',
  needsFlow: true,
  async run(ctx) {
    const state = 'oauthctl-audit-error-state';
    const outcome = await ctx.authorize({ responseType: 'oauthctl_audit_unknown', state, pkce: ctx.usesPkce ? ctx.freshPkce() : null });
    if (outcome.kind !== 'redirect' || outcome.params.error === undefined) return skip(`no error redirect to look at (${outcome.kind === 'redirect' ? 'a redirect without error' : outcome.kind})`);
    if (outcome.params.state !== state) return fail(`error=${outcome.params.error} came back with state ${outcome.params.state === undefined ? 'missing' : JSON.stringify(outcome.params.state)}`);
    return pass(`error=${outcome.params.error} with the state`);
  },
};
