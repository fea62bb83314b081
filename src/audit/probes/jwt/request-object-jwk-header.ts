import { requestObjectProbe } from '../../jwt-acceptance.js';

export const requestObjectJwkHeaderProbe = requestObjectProbe({
  id: 'request-object-jwk-header',
  title: 'a request object signed by the key in its own jwk header is refused',
  rfc: 'RFC 9101 §6.2',
  threat: 'RFC 8725 §3.10 (trusting keys named by the token)',
  remedy: 'Verify request objects with the client registered keys only.',
  change: { forgery: 'jwk-header' },
});
