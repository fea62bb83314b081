import { jarmClaims, jarmDelivery, type JarmResponseMode } from '../../../oauth/jarm.js';
import { sendFormPost } from '../pages/form-post.js';
import { redirect, type Exchange } from '../http/http.js';
import { withParams } from '../clients/redirect-uri.js';

/** JARM section 2.1: a response JWT lives only as long as the redirect takes. */
const RESPONSE_JWT_SECONDS = 60;

/** Where and how an authorization response goes: the redirect URI, form post or not, JARM's mode and audience. */
export interface ResponseDelivery {
  redirectUri: string;
  status: number;
  formPost?: boolean | undefined;
  jarm?: { mode: JarmResponseMode; clientId: string } | undefined;
}

/**
 * The authorization response (RFC 6749 section 4.1.2, or its error, section 4.1.2.1): in the query,
 * by form post, or with JARM as one `response` JWT signed with the mock's key (the ID tokens' key,
 * typ JWT) and carried in the query, the fragment or a form post (JARM section 2.3).
 */
export async function sendAuthorizationResponse(ex: Exchange, delivery: ResponseDelivery, params: Record<string, string | undefined>): Promise<void> {
  if (delivery.jarm === undefined) {
    if (delivery.formPost) sendFormPost(ex.res, delivery.redirectUri, params);
    else redirect(ex.res, withParams(delivery.redirectUri, params), delivery.status);
    return;
  }
  const { state } = ex;
  const claims = jarmClaims(params, state.issuer, delivery.jarm.clientId, Math.floor(state.now() / 1000), RESPONSE_JWT_SECONDS);
  const response = await (await state.keys()).signIdToken(claims);
  const how = jarmDelivery(delivery.jarm.mode);
  if (how === 'form_post') sendFormPost(ex.res, delivery.redirectUri, { response });
  else if (how === 'fragment') redirect(ex.res, `${delivery.redirectUri}#response=${response}`, delivery.status);
  else redirect(ex.res, withParams(delivery.redirectUri, { response }), delivery.status);
}
