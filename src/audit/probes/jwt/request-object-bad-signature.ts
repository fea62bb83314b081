import { requestObjectProbe } from '../../jwt-acceptance.js';

export const requestObjectBadSignatureProbe = requestObjectProbe({
  id: 'request-object-bad-signature',
  title: 'a request object with a broken signature is refused',
  rfc: 'RFC 9101 §6.2',
  threat: 'RFC 9101 §10.2 (request object tampering)',
  remedy: 'Verify the signature of every request object with the client registered keys.',
  change: { forgery: 'bad-signature' },
});
