import { handshake } from '../../tls-handshake.js';
import { pass, skip, warn, type AuditProbe } from '../../types.js';

/** TLS 1.2 cipher suites whose key exchange is RSA key transport: no forward secrecy. */
const RSA_KEY_TRANSPORT = 'AES128-GCM-SHA256:AES256-GCM-SHA384:AES128-SHA256:AES256-SHA256:AES128-SHA:AES256-SHA';

/** RFC 9325 section 4.1: servers SHOULD NOT negotiate cipher suites based on RSA key transport. */
export const tlsForwardSecrecyProbe: AuditProbe = {
  id: 'tls-forward-secrecy',
  title: 'TLS 1.2 without forward secrecy (RSA key transport) is refused',
  rfc: 'RFC 9325 §4.1',
  category: 'tls',
  threat: 'RFC 9325 §4.1 (recorded traffic decrypted once the server key leaks); RFC 6819 §5.1.1',
  remedy: 'Offer only ECDHE (or DHE) key exchange in TLS 1.2, and TLS 1.3.',
  async run(ctx) {
    const url = new URL(ctx.config.authorizationEndpoint);
    if (url.protocol !== 'https:') return skip('the authorization endpoint is not https');
    const result = await handshake(url, { maxVersion: 'TLSv1.2', ciphers: RSA_KEY_TRANSPORT });
    if (result.protocol !== undefined) return warn(`a ${result.protocol} handshake with RSA key transport only succeeded: no forward secrecy`);
    return pass(`refused (${result.error?.code ?? 'no handshake'})`);
  },
};
