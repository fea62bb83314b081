/** The parameters of an RP-initiated logout request (OpenID Connect RP-Initiated Logout 1.0 section 2). */
export interface EndSessionParams {
  id_token_hint?: string | undefined;
  client_id?: string | undefined;
  post_logout_redirect_uri?: string | undefined;
  state?: string | undefined;
  logout_hint?: string | undefined;
  ui_locales?: string | undefined;
}

/** The logout URL: the endpoint's own query kept, the parameters added (section 2: GET with the query). */
export function buildEndSessionUrl(endSessionEndpoint: string, params: EndSessionParams): string {
  const url = new URL(endSessionEndpoint);
  for (const [name, value] of Object.entries(params)) if (value !== undefined) url.searchParams.append(name, value);
  return url.href;
}
