import type { IO } from '../../output/io.js';
import type { Renderer } from '../../output/render.js';

/**
 * The seam where the authorization URL is handed to something that reaches the authorization server:
 * the system browser, the user (--no-browser), or a built-in headless agent. It resolves once it has
 * done its part (a browser launched, a headless login submitted); the redirect arrives separately. A
 * rejection ends the flow with that error.
 */
export interface UserAgentContext {
  authorizationUrl: string;
  redirectUri: string;
  signal: AbortSignal;
  io: IO;
  renderer: Renderer;
  /**
   * The browser could not be started (set by a flow that waits for a redirect): a `fatal` failure ends
   * the wait at once with `error`; a later one is named by the timeout's message.
   */
  browserFailed?: (error: Error, fatal: boolean) => void;
}

export type UserAgent = (ctx: UserAgentContext) => Promise<void>;
