import { handshake } from '../../tls-handshake.js';
import { pass, skip, warn, type AuditProbe } from '../../types.js';

/** RFC 9325 section 3.1.1: implementations SHOULD support TLS 1.3 (and prefer it). */
export const tls13Probe: AuditProbe = {
  id: 'tls-1-3',
  title: 'TLS 1.3 is offered',
  rfc: 'RFC 9325 §3.1.1',
  category: 'tls',
  threat: 'RFC 9325 §3.1.1 (the weaker handshakes of TLS 1.2 kept as the only choice); RFC 6819 §5.1.1',
  remedy: 'Enable TLS 1.3 on the server (and keep TLS 1.2 only with forward-secret AEAD suites).',
  async run(ctx) {
    const url = new URL(ctx.config.authorizationEndpoint);
    if (url.protocol !== 'https:') return skip('the authorization endpoint is not https');
    const result = await handshake(url, { minVersion: 'TLSv1.3' });
    if (result.protocol === 'TLSv1.3') return pass('TLSv1.3 handshake');
    return warn(`no TLS 1.3 handshake (${result.error?.code ?? result.protocol ?? 'none'})`);
  },
};
