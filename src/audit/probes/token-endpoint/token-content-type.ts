import { freshTokens } from '../../fresh-tokens.js';
import { fail, pass, type AuditProbe } from '../../types.js';

/** RFC 6749 section 5.1: the token response is application/json. */
export const tokenContentTypeProbe: AuditProbe = {
  id: 'token-content-type',
  title: 'the token response is application/json',
  rfc: 'RFC 6749 §5.1',
  category: 'token-endpoint',
  threat: 'RFC 6749 §5.1 (content sniffing of a response that holds tokens)',
  remedy: 'Send token responses with Content-Type: application/json.',
  needsFlow: true,
  async run(ctx) {
    const type = (await freshTokens(ctx)).exchange.headers['content-type'] ?? '';
    if (!/^application\/json\s*(;|$)/i.test(type)) return fail(`Content-Type: ${type || '(none)'}`);
    return pass(`Content-Type: ${type}`);
  },
};
