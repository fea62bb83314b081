import { REQUEST_URI_PREFIX, checkAuthorization } from '../core/authorization/authorization-params.js';
import { authenticateClient } from '../core/clients/client-auth.js';
import { checkDpopProof, nonceHeader } from '../core/tokens/dpop.js';
import { sendJson, sendOAuthError, type Exchange } from '../core/http/http.js';
import { serverToken } from '../core/store/random-pool.js';
import { securityOf } from '../core/store/security-store.js';
import { formParams } from './token.js';

/** RFC 9126 section 2.2: how long a request_uri may be used (single use). */
export const PUSHED_REQUEST_SECONDS = 60;

/**
 * POST /par (RFC 9126): the client authenticates as at the token endpoint, the parameters are checked
 * as at /authorize (a signed request object among them, RFC 9101), and a request_uri comes back for
 * the browser's trip to /authorize. A DPoP proof binds the code to its key (RFC 9449 section 10.1).
 */
export async function handlePar(ex: Exchange): Promise<void> {
  const values = await formParams(ex);
  if (!values) return;
  // A client ID metadata document names the client: fetched before the client authenticates.
  if (!(await (await import('../core/clients/client-metadata-document.js')).resolveFormClient(ex, values.get('client_id')))) return;
  const client = await authenticateClient(ex, values);
  if (!client) return;
  if (values.has('request_uri')) return sendOAuthError(ex, 400, 'invalid_request', 'request_uri must not be pushed (RFC 9126 section 2.1)');
  const bodyClientId = values.get('client_id');
  if (bodyClientId !== undefined && bodyClientId !== client.clientId) return sendOAuthError(ex, 400, 'invalid_request', 'client_id differs from the authenticated client');
  values.set('client_id', client.clientId);
  const proof = await checkDpopProof(ex, { htm: 'POST', htu: `${ex.state.issuer}${ex.path}` });
  if (proof && !proof.ok) return sendOAuthError(ex, 400, proof.error, proof.description, nonceHeader(ex));
  const check = await checkAuthorization(ex, values, undefined, true);
  if (check.kind === 'page') return sendOAuthError(ex, 400, 'invalid_request', check.message);
  if (check.kind === 'redirect-error') return sendOAuthError(ex, 400, check.error, check.description);
  const request = { ...check.request };
  if (proof) {
    if (request.dpopJkt !== undefined && request.dpopJkt !== proof.jkt)
      return sendOAuthError(ex, 400, 'invalid_dpop_proof', 'dpop_jkt differs from the thumbprint of the DPoP proof key (RFC 9449 section 10.1)');
    request.dpopJkt = proof.jkt;
  }
  const requestUri = `${REQUEST_URI_PREFIX}${serverToken(256)}`;
  securityOf(ex.state.store, ex.state.now).pushedRequests.set(requestUri, { client, request, expiresAt: ex.state.now() + PUSHED_REQUEST_SECONDS * 1000 });
  ex.log.outcome = 'request pushed';
  sendJson(ex.res, 201, { request_uri: requestUri, expires_in: PUSHED_REQUEST_SECONDS }, { 'Cache-Control': 'no-store', Pragma: 'no-cache' });
}
