import type { ClientCredentials } from '../../oauth/token-request.js';
import { usesClientAssertion } from '../../oauth/token-request.js';

/** What a refusal of a client assertion needs to know to suggest the other audience. */
export interface AssertionClient extends ClientCredentials {
  tokenEndpoint: string;
  issuer?: string | undefined;
  authUrl?: string | undefined;
}

/**
 * Why a server may have refused the client's assertion (RFC 7523 section 3), for a refused client
 * authentication: the other audience it might want (OpenID Connect Core section 9 names the token
 * endpoint URL, RFC 7523 the issuer identifier; servers differ), and a signing key without a kid for a
 * server that picks the client's key by kid. Undefined when the client sends no assertion.
 */
export function assertionRefusalHint(client: AssertionClient): string | undefined {
  if (!usesClientAssertion(client.authMethod)) return undefined;
  const sent = client.assertionAudience ?? client.tokenEndpoint;
  const issuer = client.issuer ?? client.authUrl?.replace(/\/+$/, '');
  const other =
    sent === client.tokenEndpoint
      ? issuer !== undefined
        ? `--client-assertion-audience issuer (aud ${issuer})`
        : '--client-assertion-audience URL (the issuer identifier)'
      : `--client-assertion-audience token-endpoint (aud ${client.tokenEndpoint})`;
  const parts = [`the client assertion went with aud ${sent}; a server that wants the other audience refuses it: try ${other}`];
  if (client.authMethod === 'private_key_jwt' && client.signingKey !== undefined && client.signingKey.kid === undefined) {
    parts.push('the signing key has no kid (a PEM file carries none), and a server that picks the client key by kid refuses that: give --signing-key-id KID');
  }
  return parts.join('; ');
}
