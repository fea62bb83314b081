import { pass, warn, type AuditProbe } from '../../types.js';

/** RFC 9700 section 2.1.2: the implicit grant (response_type=token) should not be used; a server refuses it. */
export const implicitProbe: AuditProbe = {
  id: 'implicit-refused',
  title: 'implicit grant refused',
  rfc: 'RFC 9700 §2.1.2',
  category: 'authorization-endpoint',
  threat: 'RFC 9700 §2.1.2 (token leakage in the front channel)',
  remedy: 'Turn off response_type=token (the implicit grant).',
  needsFlow: true,
  async run(ctx) {
    const outcome = await ctx.authorize({ responseType: 'token', pkce: null });
    if (outcome.kind === 'page') return pass(`response_type=token refused with an error page (HTTP ${outcome.status})`);
    if (outcome.kind === 'push-refused') return pass(`response_type=token refused: ${outcome.text}`);
    if (outcome.kind === 'elsewhere') return pass(`response_type=token not answered with a redirect to the client (${outcome.url})`);
    if (outcome.params.access_token !== undefined) return warn(`response_type=token issued an access token in the ${outcome.via}`);
    if (outcome.params.error) return pass(`response_type=token refused: error=${outcome.params.error}`);
    return warn('response_type=token was answered with a redirect that is neither an error nor a token');
  },
};
