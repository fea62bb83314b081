import { clientAssertionProbe } from '../../jwt-acceptance.js';

export const clientAssertionFarExpProbe = clientAssertionProbe({
  id: 'client-assertion-far-exp',
  title: 'a client assertion that expires in a year is refused',
  rfc: 'RFC 7523 §3 item 4',
  threat: 'RFC 6819 §4.3.5 (long-lived assertions are worth stealing)',
  remedy: 'Refuse client assertions whose exp is unreasonably far ahead (minutes, not days).',
  change: { claims: (c, now) => ({ ...c, exp: now + 365 * 86400 }) },
  accepted: 'warn',
});
