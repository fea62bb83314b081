import { clientAssertionProbe } from '../../jwt-acceptance.js';

export const clientAssertionWrongIssuerProbe = clientAssertionProbe({
  id: 'client-assertion-wrong-issuer',
  title: 'a client assertion whose iss is not the client is refused',
  rfc: 'RFC 7523 §3 item 1',
  threat: 'RFC 6819 §4.3.5 (client impersonation)',
  remedy: 'Require iss and sub of a client assertion to be the client_id.',
  change: { claims: (c) => ({ ...c, iss: 'https://attacker.example' }) },
});
