import { judgeEntropy } from '../../entropy.js';
import { parEndpointOf } from '../../par-endpoint.js';
import { fail, pass, skip, type AuditProbe } from '../../types.js';

/** RFC 9126 section 2.2 and section 7.1: a request_uri cannot be guessed. */
export const parRequestUriEntropyProbe: AuditProbe = {
  id: 'par-request-uri-entropy',
  title: 'request_uri values are random enough',
  rfc: 'RFC 9126 §2.2',
  category: 'par',
  threat: 'RFC 9126 §7.1 (guessing a request_uri of another user)',
  remedy: 'Make request_uri references of at least 128 random bits.',
  async run(ctx) {
    parEndpointOf(ctx);
    const refs: string[] = [];
    for (let i = 0; i < 2; i++) {
      const pushed = await ctx.pushRequest(ctx.authorizationUrl({ pkce: ctx.freshPkce() }));
      if (pushed.kind !== 'pushed') return skip(`the push was refused: ${pushed.text}`);
      refs.push(pushed.requestUri.replace(/^urn:ietf:params:oauth:request_uri:/, ''));
    }
    const verdict = judgeEntropy('request_uri', refs);
    return verdict.ok ? pass(verdict.detail) : fail(verdict.detail);
  },
};
