import { clientAssertionProbe } from '../../jwt-acceptance.js';

export const clientAssertionBadSignatureProbe = clientAssertionProbe({
  id: 'client-assertion-bad-signature',
  title: 'a client assertion with a broken signature is refused',
  rfc: 'RFC 7523 §3 item 9',
  threat: 'RFC 6819 §4.3.5 (client impersonation)',
  remedy: 'Verify the signature of every client assertion with the registered key.',
  change: { forgery: 'bad-signature' },
});
