import { parEndpointOf } from '../../par-endpoint.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 9126 section 2.1: a pushed request MUST NOT carry request_uri; the server refuses it. */
export const parRequestUriParamProbe: AuditProbe = {
  id: 'par-request-uri-param',
  title: 'a pushed request carrying request_uri is refused',
  rfc: 'RFC 9126 §2.1',
  category: 'par',
  threat: 'RFC 9126 §7.2 (request_uri from an attacker, SSRF); RFC 9101 §10.4',
  remedy: 'Refuse pushed authorization requests that contain request_uri (invalid_request).',
  async run(ctx) {
    parEndpointOf(ctx);
    const url = new URL(ctx.authorizationUrl({ pkce: ctx.freshPkce() }));
    url.searchParams.set('request_uri', 'urn:ietf:params:oauth:request_uri:oauthctl-audit-nested');
    const pushed = await ctx.pushRequest(url.href);
    if (pushed.kind === 'pushed') return fail(`the pushed request with request_uri was accepted (request_uri ${pushed.requestUri})`);
    return pass(`refused: ${pushed.text}`);
  },
};
