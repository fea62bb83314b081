import { requestObjectProbe } from '../../jwt-acceptance.js';

export const requestObjectHs256PublicKeyProbe = requestObjectProbe({
  id: 'request-object-hs256-public-key',
  title: 'a request object MACed with the client public key (HS256) is refused',
  rfc: 'RFC 9101 §6.2',
  threat: 'RFC 8725 §2.1, §3.1 (algorithm confusion)',
  remedy: 'Bind each client key to its algorithm; never verify an HMAC with a public key.',
  change: { forgery: 'hs256-public-key' },
});
