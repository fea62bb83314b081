import { clientAssertionProbe } from '../../jwt-acceptance.js';

export const clientAssertionKidInjectionProbe = clientAssertionProbe({
  id: 'client-assertion-kid-injection',
  title: 'a client assertion whose kid is a file path (HS256, empty key) is refused',
  rfc: 'RFC 7523 §3 item 9',
  threat: 'RFC 8725 §3.10 (kid used to fetch a key)',
  remedy: 'Treat kid as an opaque name looked up among the registered keys.',
  change: { forgery: 'kid-injection' },
});
