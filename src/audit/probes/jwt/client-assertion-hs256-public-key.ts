import { clientAssertionProbe } from '../../jwt-acceptance.js';

export const clientAssertionHs256PublicKeyProbe = clientAssertionProbe({
  id: 'client-assertion-hs256-public-key',
  title: 'a client assertion MACed with the client public key (HS256) is refused',
  rfc: 'RFC 7523 §3 item 9',
  threat: 'RFC 8725 §2.1, §3.1 (algorithm confusion)',
  remedy: 'Bind each client key to its algorithm; never verify an HMAC with a public key.',
  change: { forgery: 'hs256-public-key' },
});
