import type { IO } from '../output/io.js';
import type { Renderer } from '../output/render.js';

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
}

export type UserAgent = (ctx: UserAgentContext) => Promise<void>;
