import { clientAssertionClaims, signClientAssertion } from '../../oauth/client-assertion.js';
import { decodeJwtUnverified } from '../../oauth/jwt.js';
import { buildAuthenticatedRequest, usesClientAssertion, type ClientCredentials, type FormParams, type TokenHttpRequest } from '../../oauth/token-request.js';
import type { Renderer } from '../../output/render.js';
import { asksForDpopNonce, describeDpopProof, type DpopSession } from './dpop.js';
import type { HttpClient, HttpResponse } from '../http/http.js';

/** What an authenticated POST may carry besides the client's authentication. */
export interface AuthenticatedPostOptions {
  /** RFC 9449: a DPoP proof on the request, and one retry when the server asks for a nonce (section 8). */
  dpop?: DpopSession | undefined;
  /** Narration of the client assertion's claims and the DPoP proof (keys and signatures redacted). */
  renderer?: Renderer | undefined;
}

/**
 * One POST of form parameters to an endpoint where the client authenticates (token, PAR, device
 * authorization, introspection, revocation). Every such request of the client goes through here, so
 * that a client authentication method (or a proof the request carries) is added in one place: a client
 * assertion (RFC 7523) is made afresh for each request, a DPoP proof (RFC 9449) too.
 */
export async function postAuthenticated(http: HttpClient, client: ClientCredentials, endpoint: string, params: FormParams, options: AuthenticatedPostOptions = {}): Promise<HttpResponse> {
  const send = async (): Promise<HttpResponse> => {
    const req = await authenticatedRequest(client, endpoint, params, options.renderer);
    if (options.dpop) {
      const proof = await options.dpop.proof(req.method, req.url);
      options.renderer?.info(`DPoP proof: ${describeDpopProof(proof, options.dpop.key, options.renderer.showSecrets)}`);
      req.headers.dpop = proof;
    }
    return http.request(req.url, { method: req.method, headers: req.headers, body: req.body });
  };
  const res = await send();
  if (!options.dpop) return res;
  options.dpop.rememberNonce(endpoint, res);
  if (!asksForDpopNonce(res)) return res;
  // RFC 9449 section 8: the server wants its nonce in the proof; one retry with it.
  options.renderer?.info('the server asked for a DPoP nonce (use_dpop_nonce); sending the request again with it');
  const again = await send();
  options.dpop.rememberNonce(endpoint, again);
  return again;
}

/**
 * The authenticated POST built but not sent, with a fresh client assertion when the client uses one:
 * for callers that send it themselves, reshaped (the audit's probes).
 */
export async function authenticatedRequest(client: ClientCredentials, endpoint: string, params: FormParams, renderer?: Renderer): Promise<TokenHttpRequest> {
  return buildAuthenticatedRequest(endpoint, client, params, { clientAssertion: await assertionFor(client, endpoint, renderer) });
}

/** A fresh client assertion for one request (RFC 7523 section 3): aud the issuer by default, else the endpoint. */
async function assertionFor(client: ClientCredentials, endpoint: string, renderer: Renderer | undefined): Promise<string | undefined> {
  if (!usesClientAssertion(client.authMethod)) return undefined;
  const claims = clientAssertionClaims(client.clientId, client.assertionAudience ?? endpoint, Math.floor(Date.now() / 1000));
  const assertion = await signClientAssertion(client, claims);
  if (renderer) {
    const header = decodeJwtUnverified(assertion)?.header ?? {};
    renderer.info(`client assertion (${client.authMethod}): header ${JSON.stringify(header)} claims ${JSON.stringify(claims)}`);
  }
  return assertion;
}
