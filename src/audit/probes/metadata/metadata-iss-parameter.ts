import { metadataDocument } from '../../metadata-document.js';
import { pass, warn, type AuditProbe } from '../../types.js';

/** RFC 9207 section 3: the server announces that its authorization responses carry iss. */
export const metadataIssParameterProbe: AuditProbe = {
  id: 'metadata-iss-parameter',
  title: 'the metadata announces iss in authorization responses',
  rfc: 'RFC 9207 §3',
  category: 'metadata',
  threat: 'RFC 9700 §4.4 (mix-up attacks)',
  remedy: 'Send iss in authorization responses and set authorization_response_iss_parameter_supported to true.',
  async run(ctx) {
    if (metadataDocument(ctx).authorization_response_iss_parameter_supported === true) return pass('authorization_response_iss_parameter_supported is true');
    return warn('authorization_response_iss_parameter_supported is not true: clients talking to several servers cannot tell them apart (mix-up)');
  },
};
