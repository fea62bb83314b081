import type { AuditPlan } from '../../plan.js';

/**
 * `audit --plan fapi2`: the FAPI 2.0 Security Profile's authorization server requirements (section
 * 5.3.2), each with the probes that test it (the existing ones where they already do); the JARM and
 * RAR requirements apply where the server announces them (FAPI 2.0 Message Signing, RFC 9396); the
 * cryptography of section 5.4.1 where the server takes what is tested (DPoP, request objects) and the
 * client can sign it (an RS256 assertion or request object needs the client's RSA key).
 * Refresh token rotation is left out: the profile discourages it (5.3.2.1), where the default audit
 * asks for it.
 */
export const FAPI2_PLAN: AuditPlan = {
  name: 'fapi2',
  title: 'FAPI 2.0 Security Profile (final), authorization server',
  requirements: [
    { clause: '5.3.2.1', text: 'distributes its metadata, announcing what the profile requires', probes: ['metadata', 'fapi2-metadata'] },
    { clause: '5.3.2.1', text: 'refuses the resource owner password credentials grant', probes: ['token-password-grant', 'metadata-no-password-grant'] },
    { clause: '5.3.2.1', text: 'issues sender-constrained access tokens only (DPoP or mTLS)', probes: ['fapi2-sender-constrained'] },
    { clause: '5.3.2.1', text: 'accepts only its issuer identifier as the audience of client assertions', probes: ['fapi2-assertion-audience', 'client-assertion-audience'] },
    { clause: '5.3.2.1', text: 'exposes no open redirector', probes: ['open-redirector'] },
    { clause: '5.3.2.1', text: 'issues authorization codes that live at most 60 s and work once', probes: ['fapi2-code-lifetime', 'code-single-use'] },
    { clause: '5.3.2.2', text: 'requires pushed authorization requests', probes: ['par-required'] },
    { clause: '5.3.2.2', text: 'requires PKCE with S256', probes: ['fapi2-pkce-required', 'pkce-plain', 'pkce-wrong-verifier'] },
    { clause: '5.3.2.2', text: 'returns iss in the authorization response (RFC 9207)', probes: ['iss', 'metadata-iss-parameter'] },
    { clause: '5.3.2.2', text: 'supports the authorization code flow only (response_type code)', probes: ['implicit-refused', 'metadata-no-implicit'] },
    { clause: '5.3.2.2', text: 'matches the redirect URI exactly', probes: ['redirect-uri-exact'] },
    { clause: '5.4.1', text: 'signs with PS256, ES256 or EdDSA, and announces no other signing algorithm', probes: ['fapi2-signing-alg', 'fapi2-metadata-algs'] },
    { clause: '5.4.1', text: 'refuses DPoP proofs signed RS256, where it takes DPoP', probes: ['fapi2-dpop-rs256'], whereAnnounced: true },
    { clause: '5.4.1', text: "refuses client assertions signed RS256, where the client's key is RSA", probes: ['fapi2-assertion-rs256'], whereAnnounced: true },
    { clause: '5.4.1', text: "refuses request objects signed RS256, where it takes them and the client's key is RSA", probes: ['fapi2-request-object-rs256'], whereAnnounced: true },
    { clause: 'MS 5.4', text: 'signs JWT authorization responses for the client (JARM), where it announces them', probes: ['jarm-response'], whereAnnounced: true },
    { clause: 'RFC 9396 5', text: 'refuses authorization_details of an unknown type, where it announces the types', probes: ['rar-unknown-type'], whereAnnounced: true },
  ],
};
