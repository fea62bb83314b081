import { codeOf } from '../../outcomes.js';
import { refusal } from './pkce-required.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 7636 section 4.4.1: a code_challenge_method the server does not support is refused. */
export const pkceMethodUnknownProbe: AuditProbe = {
  id: 'pkce-method-unknown',
  title: 'an unknown code_challenge_method is refused',
  rfc: 'RFC 7636 §4.4.1',
  category: 'pkce',
  threat: 'RFC 9700 §4.8 (PKCE downgrade to a method the server does not check)',
  remedy: 'Refuse unknown code_challenge_method values with invalid_request.',
  needsFlow: true,
  async run(ctx) {
    const pair = ctx.freshPkce('S256');
    const outcome = await ctx.authorize({ pkce: { codeChallenge: pair.codeChallenge, codeChallengeMethod: 'S512' as 'S256' } });
    if (codeOf(outcome) !== undefined) return fail('code_challenge_method=S512 got a code');
    return pass(refusal(outcome) ?? 'refused');
  },
};
