import { buildAuthenticatedRequest, type ClientCredentials, type FormParams } from '../oauth/token-request.js';
import type { HttpClient, HttpResponse } from './http.js';

/**
 * One POST of form parameters to an endpoint where the client authenticates (token, PAR, device
 * authorization, introspection, revocation). Every such request of the client goes through here, so
 * that a client authentication method (or a proof the request carries) is added in one place.
 */
export async function postAuthenticated(http: HttpClient, client: ClientCredentials, endpoint: string, params: FormParams): Promise<HttpResponse> {
  const req = buildAuthenticatedRequest(endpoint, client, params);
  return http.request(req.url, { method: req.method, headers: req.headers, body: req.body });
}
