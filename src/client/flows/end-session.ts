import { FlowError } from '../../errors.js';
import { buildEndSessionUrl } from '../../oauth/end-session.js';
import { constantTimeEqual } from '../../oauth/pkce.js';
import { generateState } from '../../oauth/random.js';
import type { IO } from '../../output/io.js';
import type { Renderer } from '../../output/render.js';
import { startRedirectListener } from '../listeners/listener.js';
import type { UserAgent } from './user-agent.js';

export interface EndSessionInput {
  endSessionEndpoint: string;
  clientId: string;
  /** The cached login's ID token: the server ties the request to its session by it. */
  idToken?: string | undefined;
  /** A loopback URI; without a port the listener takes a free one. */
  postLogoutRedirectUri: string;
  userAgent: UserAgent;
  renderer: Renderer;
  io: IO;
  timeoutMs: number;
}

export interface EndSessionResult {
  end_session_endpoint: string;
  post_logout_redirect_uri: string;
}

/**
 * RP-Initiated Logout 1.0: the user agent goes to the end_session_endpoint with id_token_hint,
 * client_id, a post_logout_redirect_uri on the loopback listener and a fresh state; the server's
 * redirect back must carry that state (section 3: the RP checks it), else the logout is not confirmed.
 */
export async function endSessionAtServer(input: EndSessionInput): Promise<EndSessionResult> {
  const state = generateState();
  const listener = await startRedirectListener({ redirectUri: input.postLogoutRedirectUri, expectedState: state, postLogout: true });
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new FlowError(`the server did not send the browser back to ${listener.redirectUri} within ${input.timeoutMs / 1000} s`, 'finish the sign-out in the browser, or raise --timeout'),
      ),
    input.timeoutMs,
  );
  try {
    const url = buildEndSessionUrl(input.endSessionEndpoint, { id_token_hint: input.idToken, client_id: input.clientId, post_logout_redirect_uri: listener.redirectUri, state });
    input.renderer.step('End session at the server (RP-Initiated Logout)');
    const back = listener.waitForRedirect(controller.signal);
    await input.userAgent({ authorizationUrl: url, redirectUri: listener.redirectUri, signal: controller.signal, io: input.io, renderer: input.renderer });
    const capture = await back;
    const returned = capture.params.state;
    if (returned === undefined || !constantTimeEqual(returned, state)) {
      throw new FlowError('the post-logout redirect does not carry the state oauthctl sent: the sign-out is not confirmed', 'the tokens are still cached; try again');
    }
    input.renderer.ok(`Signed out at ${input.endSessionEndpoint}`);
    return { end_session_endpoint: input.endSessionEndpoint, post_logout_redirect_uri: listener.redirectUri };
  } finally {
    clearTimeout(timer);
    await listener.close();
  }
}
