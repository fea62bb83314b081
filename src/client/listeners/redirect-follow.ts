import { CliError } from '../../errors.js';
import { loopbackBindAddress } from '../../oauth/loopback.js';
import type { HarRecorder } from '../../output/har.js';
import { portAsWritten, startRedirectListener, type RedirectListener, type RedirectReceiver } from './listener.js';

/** The listener follows the edit: the receiver to wait on now (the same one moved, or a new one). */
export interface FollowedRedirect {
  receiver: RedirectReceiver;
}

/** The edit cannot be followed: why, in one line. */
export interface RefusedRedirect {
  refused: string;
}

/**
 * --step: the person changed `redirect_uri` in the authorization request. The server sends the user
 * agent where the request now says (RFC 6749 section 4.1.2), so the client must receive it there:
 * the same listener on another path when the new URI names its address and port, a new listener when
 * it names another loopback port (RFC 8252 section 7.3). Anything else no listener of oauthctl's can
 * receive: the edit is refused with the reason, and the person asked again.
 */
export async function followRedirectUri(
  receiver: RedirectReceiver,
  edited: string,
  options: { expectedState?: string | undefined; har?: HarRecorder | undefined },
): Promise<FollowedRedirect | RefusedRedirect> {
  const refuse = (why: string): RefusedRedirect => ({ refused: `redirect_uri ${JSON.stringify(edited)} was not sent: ${why}` });
  if (!isListener(receiver)) return refuse(`this login receives its redirect at ${receiver.redirectUri} and cannot move; give --redirect-uri instead`);
  let uri: URL;
  try {
    uri = new URL(edited);
  } catch {
    return refuse('it is not a URL');
  }
  const host = loopbackBindAddress(uri.hostname);
  if (uri.protocol !== 'http:' || host === undefined) {
    return refuse('oauthctl can receive a redirect only at a loopback http URI (RFC 8252 section 7.3), such as http://127.0.0.1:PORT/path');
  }
  if (uri.hash !== '') return refuse('a redirect URI must not have a fragment (RFC 6749 section 3.1.2)');
  const port = portAsWritten(edited);
  if (port === undefined) return refuse(`it names no port; write one, e.g. the listener's: http://${uri.host}:${receiver.port}${uri.pathname}`);
  if (host === receiver.host && port === receiver.port) {
    receiver.acceptPath(uri.pathname);
    return { receiver: { ...receiver, redirectUri: edited } };
  }
  try {
    const moved = await startRedirectListener({ redirectUri: edited, expectedState: options.expectedState, har: options.har });
    await receiver.close();
    return { receiver: { ...moved, redirectUri: edited } };
  } catch (err) {
    if (err instanceof CliError) return refuse(err.message);
    throw err;
  }
}

function isListener(receiver: RedirectReceiver): receiver is RedirectListener {
  return typeof (receiver as Partial<RedirectListener>).acceptPath === 'function';
}
