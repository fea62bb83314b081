import type { Renderer } from '../../output/render.js';
import { asksForDpopNonce, describeDpopProof, type DpopSession } from '../flows/dpop.js';
import type { HttpClient, HttpRequestOptions, HttpResponse } from '../http/http.js';

/**
 * A request to a protected resource with an access token: `Authorization: Bearer` (RFC 6750 section
 * 2.1), or for a DPoP-bound token `Authorization: DPoP` with a proof carrying ath (RFC 9449 section 7.1),
 * sent once more with the resource server's nonce when it asks for one (section 9).
 */
export async function sendWithAccessToken(
  http: HttpClient,
  url: string,
  request: HttpRequestOptions & { method: string },
  accessToken: string,
  dpop: DpopSession | undefined,
  renderer?: Renderer,
): Promise<HttpResponse> {
  const send = async (): Promise<HttpResponse> => {
    const headers: Record<string, string> = { ...request.headers, authorization: `${dpop ? 'DPoP' : 'Bearer'} ${accessToken}` };
    if (dpop) {
      headers.dpop = await dpop.proof(request.method, url, accessToken);
      renderer?.trace(`DPoP proof: ${describeDpopProof(headers.dpop, dpop.key, renderer.showSecrets)}`);
    }
    return http.request(url, { ...request, headers });
  };
  const res = await send();
  if (!dpop) return res;
  dpop.rememberNonce(url, res);
  if (!asksForDpopNonce(res)) return res;
  renderer?.info('the resource server asked for a DPoP nonce (use_dpop_nonce); sending the request again with it');
  const again = await send();
  dpop.rememberNonce(url, again);
  return again;
}
