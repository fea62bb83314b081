import { clientAssertionProbe } from '../../jwt-acceptance.js';

export const clientAssertionCritProbe = clientAssertionProbe({
  id: 'client-assertion-crit',
  title: 'a client assertion with an unknown critical header is refused',
  rfc: 'RFC 7515 §4.1.11',
  threat: 'RFC 8725 §3.1 (header parameters ignored)',
  remedy: 'Refuse a JWS whose crit names an extension you do not understand.',
  change: { forgery: 'crit' },
});
