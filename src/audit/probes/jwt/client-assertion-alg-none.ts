import { clientAssertionProbe } from '../../jwt-acceptance.js';

export const clientAssertionAlgNoneProbe = clientAssertionProbe({
  id: 'client-assertion-alg-none',
  title: 'an unsigned (alg none) client assertion is refused',
  rfc: 'RFC 7523 §3 item 9',
  threat: 'RFC 8725 §2.1, §3.1 (alg none)',
  remedy: 'Verify client assertions with an allow-list of algorithms that excludes none.',
  change: { forgery: 'alg-none' },
});
