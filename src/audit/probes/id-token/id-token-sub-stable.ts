import { freshIdToken } from '../../id-token-response.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** OpenID Connect Core section 2: sub is a locally unique, never reassigned identifier: the same user gets the same sub. */
export const idTokenSubStableProbe: AuditProbe = {
  id: 'id-token-sub-stable',
  title: 'the same user gets the same sub twice',
  rfc: 'OIDC Core §2',
  category: 'id-token',
  threat: 'OIDC Core §5.7 (accounts matched on an unstable identifier)',
  remedy: 'Issue a stable sub per user (and client, for pairwise identifiers).',
  needsFlow: true,
  async run(ctx) {
    const first = (await freshIdToken(ctx)).idToken.claims;
    const second = (await freshIdToken(ctx)).idToken.claims;
    if (typeof first.sub !== 'string' || first.sub === '') return fail('the ID token has no sub');
    if (first.sub !== second.sub || first.iss !== second.iss) return fail(`two logins of one user: sub ${JSON.stringify(first.sub)} then ${JSON.stringify(second.sub)}`);
    return pass(`sub ${JSON.stringify(first.sub)} both times`);
  },
};
