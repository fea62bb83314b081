import { codeOf } from '../../outcomes.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';
import { refusal } from '../pkce/pkce-required.js';

/**
 * RFC 9126 section 5: with require_pushed_authorization_requests, a request not pushed is refused.
 * Under --plan fapi2 PAR is required whatever the metadata says (FAPI 2.0 Security Profile section
 * 5.3.2.2), so a plain request that gets a code fails there.
 */
export const parRequiredProbe: AuditProbe = {
  id: 'par-required',
  title: 'PAR required when the metadata says so',
  rfc: 'RFC 9126 §5',
  category: 'par',
  threat: 'RFC 9126 §5',
  remedy: 'When PAR is required, refuse authorization requests that were not pushed.',
  needsFlow: false,
  async run(ctx) {
    const announced = ctx.metadata?.require_pushed_authorization_requests === true;
    if (!announced && ctx.plan !== 'fapi2') return skip('the metadata does not say require_pushed_authorization_requests');
    // Walked as it is, never pushed, even when the audit pushes its own requests.
    const outcome = await ctx.walk(ctx.authorizationUrl({ pkce: ctx.usesPkce ? ctx.freshPkce() : null }));
    if (codeOf(outcome) !== undefined) {
      return fail(
        announced
          ? 'require_pushed_authorization_requests is true, but a request that was not pushed got a code'
          : 'a plain request to /authorize, not pushed, got a code: FAPI 2.0 (section 5.3.2.2) requires PAR for every authorization request (and the metadata does not say require_pushed_authorization_requests)',
      );
    }
    return pass(`a request that was not pushed was refused: ${refusal(outcome)}`);
  },
};
