import { randomToken } from '../../../oauth/random.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 6749 section 4.1.2: state comes back exactly as sent, including characters that need encoding. */
export const stateProbe: AuditProbe = {
  id: 'state',
  title: 'state returned byte for byte',
  rfc: 'RFC 6749 §4.1.2',
  category: 'authorization-endpoint',
  threat: 'RFC 9700 §4.7 (CSRF)',
  remedy: 'Return the state parameter byte for byte as the client sent it.',
  needsFlow: true,
  async run(ctx) {
    const state = `${randomToken(128)} +/=?&#%é☃~`;
    const outcome = await ctx.authorize({ state, pkce: ctx.usesPkce ? ctx.freshPkce() : null });
    if (outcome.kind !== 'redirect')
      return fail(`no redirect to check (${outcome.kind === 'page' ? `HTTP ${outcome.status} page at ${outcome.url}` : outcome.kind === 'push-refused' ? outcome.text : outcome.url})`);
    const returned = outcome.params.state;
    if (returned === undefined) return fail('the redirect carries no state');
    if (returned !== state) return fail(`sent ${JSON.stringify(state)}, got back ${JSON.stringify(returned)}`);
    return pass('a state with space, +, /, =, ?, &, #, %, é and ☃ came back unchanged');
  },
};
