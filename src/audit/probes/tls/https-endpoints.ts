import { isLoopbackHost } from '../../../oauth/loopback.js';
import { pass, warn, type AuditProbe } from '../../types.js';

/** RFC 6749 sections 3.1 and 3.2 (TLS required) and RFC 8252 section 8.3 (loopback excepted). */
export const httpsEndpointsProbe: AuditProbe = {
  id: 'https-endpoints',
  title: 'endpoints use https (except loopback)',
  rfc: 'RFC 6749 §3.1',
  category: 'tls',
  threat: 'RFC 6749 §3.1; RFC 6819 §5.1.1',
  remedy: 'Serve every endpoint over https (loopback aside).',
  async run(ctx) {
    const endpoints: [string, string | undefined][] = [
      ['authorization_endpoint', ctx.config.authorizationEndpoint],
      ['token_endpoint', ctx.config.tokenEndpoint],
      ['issuer', ctx.issuer],
    ];
    const plain: string[] = [];
    const loopback: string[] = [];
    for (const [name, value] of endpoints) {
      if (!value) continue;
      const url = new URL(value);
      if (url.protocol === 'https:') continue;
      (isLoopbackHost(url.hostname) ? loopback : plain).push(`${name} ${value}`);
    }
    if (plain.length > 0) return warn(`plain http: ${plain.join(', ')}`);
    return pass(loopback.length > 0 ? `https, or http on loopback (${loopback.map((l) => l.split(' ')[0]).join(', ')})` : 'all https');
  },
};
