import { requestObjectProbe } from '../../jwt-acceptance.js';

export const requestObjectExpiredProbe = requestObjectProbe({
  id: 'request-object-expired',
  title: 'an expired request object is refused',
  rfc: 'RFC 9101 §6.3',
  threat: 'RFC 9101 §10.8 (replay of request objects)',
  remedy: 'Check exp of request objects and refuse expired ones.',
  change: { claims: (c, now) => ({ ...c, iat: now - 900, nbf: now - 900, exp: now - 600 }) },
});
