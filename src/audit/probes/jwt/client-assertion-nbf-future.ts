import { clientAssertionProbe } from '../../jwt-acceptance.js';

export const clientAssertionNbfFutureProbe = clientAssertionProbe({
  id: 'client-assertion-nbf-future',
  title: 'a client assertion not valid before a future time is refused',
  rfc: 'RFC 7523 §3 item 5',
  threat: 'RFC 7519 §4.1.5 (a JWT used before its nbf)',
  remedy: 'Check nbf of client assertions.',
  change: { claims: (c, now) => ({ ...c, nbf: now + 300, exp: now + 360 }) },
});
