import { isLoopbackHost } from '../../../oauth/loopback.js';

/**
 * Whether the admin API answers, from the listening host and --admin: on loopback it is on (for requests
 * whose Host is a loopback name, against DNS rebinding); beyond loopback only with --admin, because
 * whoever reaches it can mint tokens.
 */
export function adminMode(listenHost: string, admin?: boolean): 'off' | 'loopback' | 'any' {
  if (admin === true) return 'any';
  if (admin === false) return 'off';
  return isLoopbackHost(listenHost) ? 'loopback' : 'off';
}
