import { clientAssertionProbe } from '../../jwt-acceptance.js';

export const clientAssertionNoExpProbe = clientAssertionProbe({
  id: 'client-assertion-no-exp',
  title: 'a client assertion without exp is refused',
  rfc: 'RFC 7523 §3 item 4',
  threat: 'RFC 6819 §4.3.5; RFC 8725 §3.10 (assertions that never expire)',
  remedy: 'Require exp in client assertions.',
  change: { claims: ({ exp: _exp, ...rest }) => rest },
});
