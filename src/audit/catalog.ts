import type { AuditProbe, Probe } from './types.js';

type Metadata = Pick<AuditProbe, 'category' | 'threat' | 'remedy'>;

/**
 * The category, threat and remedy of the probes written before probes carried them (the first two
 * rounds); a newer probe declares its own inline. Threats cite RFC 9700 (the OAuth 2.0 Security BCP)
 * or RFC 6819 (the threat model) where one names the attack, else the specification section checked.
 */
const CATALOG: Readonly<Record<string, Metadata>> = {
  flow: { category: 'authorization-endpoint', threat: 'RFC 6749 §4.1', remedy: 'Make the authorization code flow work for the audited client: every other probe builds on it.' },
  state: { category: 'authorization-endpoint', threat: 'RFC 9700 §4.7 (CSRF)', remedy: 'Return the state parameter byte for byte as the client sent it.' },
  iss: { category: 'authorization-endpoint', threat: 'RFC 9700 §4.4 (mix-up)', remedy: 'Send iss, the exact issuer, in every authorization response (RFC 9207).' },
  'code-single-use': {
    category: 'token-endpoint',
    threat: 'RFC 9700 §4.5 (code injection); RFC 6819 §4.4.1.1',
    remedy: 'Refuse a second redemption of a code with invalid_grant and revoke the tokens its first use issued.',
  },
  'code-redirect-binding': {
    category: 'token-endpoint',
    threat: 'RFC 6819 §4.4.1.7 (code leaked through a redirect URI)',
    remedy: 'Refuse a code whose redirect_uri at the token endpoint differs from the authorization request.',
  },
  'code-client-binding': {
    category: 'token-endpoint',
    threat: 'RFC 9700 §4.5 (code injection); RFC 6819 §5.2.4.4',
    remedy: 'Bind each code to the client it was issued to; refuse it for any other client.',
  },
  'pkce-required': { category: 'pkce', threat: 'RFC 9700 §4.5 (code injection); RFC 9700 §2.1.1', remedy: 'Require a code_challenge from public clients (better: from every client).' },
  'pkce-wrong-verifier': { category: 'pkce', threat: 'RFC 7636 §1 (code interception)', remedy: 'Compare the code_verifier with the stored code_challenge and refuse a mismatch with invalid_grant.' },
  'pkce-downgrade': { category: 'pkce', threat: 'RFC 9700 §4.8 (PKCE downgrade)', remedy: 'Refuse a token request without code_verifier when the authorization request had a code_challenge.' },
  'pkce-plain': { category: 'pkce', threat: 'RFC 9700 §2.1.1; RFC 7636 §7.2', remedy: 'Accept only code_challenge_method S256.' },
  'redirect-uri-exact': {
    category: 'authorization-endpoint',
    threat: 'RFC 9700 §4.1 (insufficient redirect URI validation)',
    remedy: 'Compare redirect URIs by exact string match (loopback ports aside, RFC 8252 §7.3).',
  },
  'open-redirector': {
    category: 'authorization-endpoint',
    threat: 'RFC 9700 §4.11.2 (authorization server as open redirector)',
    remedy: 'Show an error page, never a redirect, when the client or the redirect URI is not valid.',
  },
  'client-secret-wrong': {
    category: 'client-authentication',
    threat: 'RFC 6819 §4.3.5 (client credentials guessed)',
    remedy: 'Refuse a wrong client secret with HTTP 401 invalid_client and a WWW-Authenticate of the scheme used.',
  },
  'implicit-refused': { category: 'authorization-endpoint', threat: 'RFC 9700 §2.1.2 (token leakage in the front channel)', remedy: 'Turn off response_type=token (the implicit grant).' },
  'refresh-rotation': { category: 'tokens', threat: 'RFC 9700 §4.14 (refresh token leakage)', remedy: 'Rotate refresh tokens of public clients and revoke the family when an old one is used again.' },
  'id-token': { category: 'id-token', threat: 'OIDC Core §3.1.3.7', remedy: 'Sign ID tokens with a published key and set iss, aud, exp, iat and nonce right.' },
  'token-post-only': {
    category: 'token-endpoint',
    threat: 'RFC 6819 §5.4.2 (credentials in URLs leak through logs)',
    remedy: 'Answer only POST at the token endpoint and never read credentials from the query string.',
  },
  'repeated-params': { category: 'authorization-endpoint', threat: 'RFC 6749 §3.1 (parameter pollution)', remedy: 'Refuse requests in which a parameter appears more than once.' },
  'unknown-params': { category: 'authorization-endpoint', threat: 'RFC 6749 §3.1', remedy: 'Ignore authorization parameters you do not know instead of failing the request.' },
  framing: {
    category: 'authorization-endpoint',
    threat: 'RFC 9700 §4.16 (clickjacking); RFC 6819 §4.4.1.9',
    remedy: "Send X-Frame-Options: DENY or Content-Security-Policy frame-ancestors 'none' on the login and consent pages.",
  },
  metadata: { category: 'metadata', threat: 'RFC 9700 §4.4 (mix-up); RFC 8414 §3.3', remedy: 'Serve metadata whose issuer is exactly the issuer, with the required fields, S256 and https endpoints.' },
  jwks: { category: 'metadata', threat: 'RFC 7517 §5; RFC 8725 §3.5', remedy: 'Publish only public keys, each with a kid, of sufficient strength.' },
  'par-required': { category: 'par', threat: 'RFC 9126 §5', remedy: 'When PAR is required, refuse authorization requests that were not pushed.' },
  'par-single-use': { category: 'par', threat: 'RFC 9126 §4 (request_uri replay)', remedy: 'Let a request_uri be used once only.' },
  'par-client-binding': { category: 'par', threat: 'RFC 9126 §4', remedy: 'Refuse a request_uri presented with another client_id than the one that pushed it.' },
  'par-expiry': { category: 'par', threat: 'RFC 9126 §2.2', remedy: 'Give pushed requests a short lifetime (expires_in, e.g. 60 s) and refuse them after it.' },
  'dpop-replay': { category: 'dpop', threat: 'RFC 9449 §11.1 (proof replay)', remedy: 'Track the jti of DPoP proofs within their lifetime and refuse a repeated one.' },
  'dpop-htm-htu': { category: 'dpop', threat: 'RFC 9449 §4.3 (proof for another request)', remedy: 'Check that a proof’s htm and htu match the request it comes with.' },
  'dpop-bound-as-bearer': { category: 'dpop', threat: 'RFC 9449 §7.2 (downgrade to bearer)', remedy: 'Refuse a DPoP-bound access token presented as a bearer token.' },
  'client-assertion-replay': {
    category: 'client-authentication',
    threat: 'RFC 7523 §3 item 7; RFC 6819 §4.3.5',
    remedy: 'Remember the jti of client assertions until they expire and refuse a repeated one.',
  },
  'client-assertion-audience': {
    category: 'client-authentication',
    threat: 'RFC 7523 §3 item 3 (assertion for another server)',
    remedy: 'Refuse client assertions whose aud is not this server (its issuer or token endpoint).',
  },
  'client-assertion-expired': { category: 'jwt', threat: 'RFC 7523 §3 item 4; RFC 8725 §3.10', remedy: 'Check exp of client assertions and refuse expired ones.' },
  'jar-unsigned': { category: 'jwt', threat: 'RFC 9101 §10.5; RFC 8725 §3.1 (alg none)', remedy: 'Refuse request objects with alg none (and announce require_signed_request_object).' },
  'client-credentials-public': { category: 'token-endpoint', threat: 'RFC 6749 §4.4; RFC 6819 §4.3.5', remedy: 'Grant client_credentials to confidential clients only.' },
  'device-code-single-use': { category: 'device', threat: 'RFC 8628 §3.5', remedy: 'Invalidate a device code once tokens have been issued for it.' },
  'device-slow-down': { category: 'device', threat: 'RFC 8628 §3.5; RFC 8628 §5.1 (brute force)', remedy: 'Answer slow_down to clients that poll faster than the interval.' },
  'device-unknown-user-code': { category: 'device', threat: 'RFC 8628 §5.1 (user code brute force)', remedy: 'Refuse unknown user codes on the verification page and rate-limit attempts.' },
  'https-endpoints': { category: 'tls', threat: 'RFC 6749 §3.1; RFC 6819 §5.1.1', remedy: 'Serve every endpoint over https (loopback aside).' },
  tls: { category: 'tls', threat: 'RFC 8996; RFC 6797; RFC 9700 §4.12 (TLS terminating proxies)', remedy: 'Offer TLS 1.2 or later only, a valid certificate, and Strict-Transport-Security.' },
  'token-no-store': { category: 'tokens', threat: 'RFC 6749 §5.1; RFC 6819 §5.1.6', remedy: 'Send Cache-Control: no-store with every response that carries tokens.' },
  'error-format': { category: 'token-endpoint', threat: 'RFC 6749 §5.2', remedy: 'Answer token errors as JSON {error, error_description} with the status RFC 6749 §5.2 gives.' },
};

/** The probe with its category, threat and remedy: its own when it declares them, else the catalog's. */
export function catalogued(probe: Probe): AuditProbe {
  if (probe.category !== undefined && probe.threat !== undefined && probe.remedy !== undefined) return { ...probe, category: probe.category, threat: probe.threat, remedy: probe.remedy };
  const entry = CATALOG[probe.id];
  if (!entry) throw new Error(`probe ${probe.id} has no category, threat and remedy (declare them or add it to src/audit/catalog.ts)`);
  return { ...probe, ...entry };
}
