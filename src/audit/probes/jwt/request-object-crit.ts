import { requestObjectProbe } from '../../jwt-acceptance.js';

export const requestObjectCritProbe = requestObjectProbe({
  id: 'request-object-crit',
  title: 'a request object with an unknown critical header is refused',
  rfc: 'RFC 7515 §4.1.11',
  threat: 'RFC 8725 §3.1 (header parameters ignored)',
  remedy: 'Refuse a JWS whose crit names an extension you do not understand.',
  change: { forgery: 'crit' },
});
