import { clientAssertionProbe } from '../../jwt-acceptance.js';

export const clientAssertionJwkHeaderProbe = clientAssertionProbe({
  id: 'client-assertion-jwk-header',
  title: 'a client assertion signed by the key in its own jwk header is refused',
  rfc: 'RFC 7523 §3 item 9',
  threat: 'RFC 8725 §3.10 (trusting keys named by the token)',
  remedy: 'Verify client assertions with the registered keys only, never one embedded in the JWT.',
  change: { forgery: 'jwk-header' },
});
