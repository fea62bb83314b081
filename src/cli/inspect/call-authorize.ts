import type { HttpClient, HttpResponse } from '../../client/http/http.js';
import { resourceChallenge } from '../../oauth/resource-metadata.js';
import type { IO } from '../../output/io.js';
import type { Renderer } from '../../output/render.js';
import { MAX_AUTHORIZATIONS, type McpAuthorizationOptions } from '../mcp/mcp-authorize.js';

/** What of `call`'s options the resource's login takes. */
export type CallLoginOptions = Pick<
  McpAuthorizationOptions,
  'clientId' | 'clientSecret' | 'issuer' | 'clientMetadataUrl' | 'headless' | 'username' | 'password' | 'browser' | 'insecure' | 'httpTimeout' | 'verbose' | 'showSecrets'
>;

/**
 * `call`'s answer to a refusal, as an MCP client answers one (MCP authorization 2025-11-25): a 401 whose
 * challenge names the resource's metadata (RFC 9728 section 5.1) starts the resource's login with the
 * challenge's scope; a 403 insufficient_scope (RFC 6750 section 3.1) logs in again asking for the
 * wider scope. At most MAX_AUTHORIZATIONS times; the last answer is returned either way.
 */
export async function authorizeOnChallenge(
  url: string,
  first: HttpResponse,
  send: (token: string) => Promise<HttpResponse>,
  options: CallLoginOptions,
  ctx: { http: HttpClient; renderer: Renderer; io: IO },
): Promise<HttpResponse> {
  let response = first;
  let granted: string[] = [];
  for (let i = 0; i < MAX_AUTHORIZATIONS; i++) {
    const challenge = resourceChallenge(response.headers['www-authenticate']);
    const unauthorized = response.status === 401 && challenge.resourceMetadata !== undefined;
    const stepUp = response.status === 403 && challenge.error === 'insufficient_scope';
    if (!unauthorized && !stepUp) return response;
    ctx.renderer.step(
      unauthorized
        ? `HTTP 401 with resource_metadata: logging in for the resource (RFC 9728 section 5.1)`
        : `HTTP 403 insufficient_scope${challenge.scope ? `: it asks for "${challenge.scope}"` : ''} (RFC 6750 section 3.1): logging in again with the wider scope`,
    );
    const { authorizeMcp } = await import('../mcp/mcp-authorize.js');
    const got = await authorizeMcp(
      url,
      response,
      {
        clientId: options.clientId,
        clientSecret: options.clientSecret,
        issuer: options.issuer,
        clientMetadataUrl: options.clientMetadataUrl,
        headless: options.headless,
        username: options.username,
        password: options.password,
        browser: options.browser,
        insecure: options.insecure,
        httpTimeout: options.httpTimeout,
        verbose: options.verbose,
        showSecrets: options.showSecrets,
      },
      ctx,
      stepUp ? granted : undefined,
    );
    granted = got.scopes;
    response = await send(got.accessToken);
  }
  return response;
}
