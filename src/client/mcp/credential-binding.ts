import { FlowError } from '../../errors.js';
import type { Renderer } from '../../output/render.js';
import type { Env } from '../../store/paths.js';
import { readClientBinding, saveClientBinding } from '../../store/client-bindings.js';

export interface BindingInput {
  clientId: string;
  /** What is given with it: --client-secret, --signing-key, --assertion (for the narration). */
  credentials: string[];
  /** The authorization server the MCP server's metadata led to. */
  issuer: string;
  /** --issuer: where the user said the credentials belong. */
  issuerFlag?: string | undefined;
  env: Env;
  renderer: Renderer;
}

const norm = (s: string) => s.replace(/\/+$/, '');

/**
 * Credentials given on the command line go to the authorization server they belong to, never to
 * whichever one an MCP server names (RFC 9700 section 4.4 on mix-up; RFC 6749 section 10.1: a client
 * secret is for the server that issued it). --issuer binds them; without it the first server they are
 * sent to is named and kept, and any other is refused before a byte is sent.
 */
export async function checkCredentialBinding(input: BindingInput): Promise<void> {
  const { clientId, issuer, renderer } = input;
  const what = `the credentials of client ${clientId} (${input.credentials.join(', ')})`;
  if (input.issuerFlag !== undefined) {
    if (norm(input.issuerFlag) !== norm(issuer)) {
      throw new FlowError(`the MCP server's authorization server is ${issuer}, not --issuer ${input.issuerFlag}: ${what} are not sent there`, 'check the MCP server URL, or give the right --issuer');
    }
    renderer.info(`${what} are bound to ${issuer} (--issuer)`);
    return;
  }
  const { binding, path } = await readClientBinding(input.env, clientId);
  if (binding === undefined) {
    const kept = await saveClientBinding(input.env, { version: 1, client_id: clientId, issuer, bound_at: Math.floor(Date.now() / 1000) });
    renderer.warn(`${what} go to ${issuer}, the server this MCP server names; they are bound to it from now on (kept in ${kept}; give --issuer to choose yourself)`);
    return;
  }
  if (norm(binding.issuer) !== norm(issuer)) {
    throw new FlowError(
      `the MCP server now names the authorization server ${issuer}, but ${what} are bound to ${binding.issuer}: they are not sent there`,
      `if ${issuer} really is this client's server, give --issuer ${issuer} (the binding is kept in ${path})`,
    );
  }
  renderer.info(`${what} are bound to ${issuer} (kept in ${path})`);
}
