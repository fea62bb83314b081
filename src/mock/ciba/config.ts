import { CIBA_DELIVERY_MODES, CIBA_GRANT, type CibaDeliveryMode } from '../../oauth/ciba.js';
import { isLoopbackHost } from '../../oauth/loopback.js';

/** CIBA Core 1.0 section 4: a client's registered token delivery (client metadata). */
export interface CibaClientFields {
  /** Set for a client registered with the CIBA grant: poll (the default) or ping. */
  cibaDeliveryMode?: CibaDeliveryMode;
  /** Ping mode: where the server POSTs the notification (section 10.2). */
  cibaNotificationEndpoint?: string;
}

export const CIBA_CLIENT_KEYS = ['backchannel_token_delivery_mode', 'backchannel_client_notification_endpoint'] as const;

/**
 * A client's CIBA fields: the delivery mode (poll when not named) and, for ping, the notification
 * endpoint, which must be https or on loopback (the mock POSTs to it). A client that does not authenticate
 * may not use CIBA (section 7.1: the request is authenticated as at the token endpoint).
 */
export function validateCibaClient(c: Record<string, unknown>, grantTypes: ReadonlySet<string>, publicClient: boolean, bad: (field: string, message: string) => void): CibaClientFields {
  const mode = c.backchannel_token_delivery_mode;
  const endpoint = c.backchannel_client_notification_endpoint;
  if (!grantTypes.has(CIBA_GRANT)) {
    if (mode !== undefined || endpoint !== undefined) bad('backchannel_token_delivery_mode', `is only for a client whose grant_types include ${CIBA_GRANT}`);
    return {};
  }
  if (publicClient) bad('grant_types', `${CIBA_GRANT} needs a client that authenticates (CIBA Core section 7.1): give it a client_secret or keys`);
  if (mode !== undefined && !CIBA_DELIVERY_MODES.includes(mode as CibaDeliveryMode)) {
    bad('backchannel_token_delivery_mode', `must be one of ${CIBA_DELIVERY_MODES.join(', ')} (push is not supported)`);
    return {};
  }
  const deliveryMode = (mode ?? 'poll') as CibaDeliveryMode;
  if (deliveryMode === 'poll') {
    if (endpoint !== undefined) bad('backchannel_client_notification_endpoint', 'is only for the ping mode');
    return { cibaDeliveryMode: 'poll' };
  }
  const problem = notificationEndpointProblem(endpoint);
  if (problem) {
    bad('backchannel_client_notification_endpoint', problem);
    return {};
  }
  return { cibaDeliveryMode: 'ping', cibaNotificationEndpoint: endpoint as string };
}

/** Section 4: an https URL; http only on loopback (a test's listener), since the mock POSTs a bearer token to it. */
function notificationEndpointProblem(value: unknown): string | undefined {
  if (typeof value !== 'string') return 'the ping mode needs it: the https (or loopback http) URL the notification is POSTed to';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.hash !== '' || url.username !== '' || url.password !== '') return 'must have no fragment and no user information';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopbackHost(url.hostname)) return undefined;
  return 'must be https, or http on a loopback address (127.0.0.1, [::1], localhost)';
}
