import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { IO } from '../../output/io.js';
import { addCommonOptions, setExitCode, type CommonOptions } from '../program/command.js';
import { addFlowOptions, type FlowOptionsInput } from '../options/flow-options.js';
import { createFlowRuntime, resolveFlowConfig } from '../options/flow-pipeline.js';
import { tokenOrCached } from '../options/token-argument.js';

export interface RevokeOptions extends FlowOptionsInput, CommonOptions {
  tokenTypeHint?: string;
}

/** Token revocation (RFC 7009): one request; the cache is left as it is (`logout` revokes and forgets). */
export async function runRevoke(token: string | undefined, options: RevokeOptions, io: IO): Promise<number> {
  const { renderer, http } = await createFlowRuntime(options, io);
  try {
    const config = await resolveFlowConfig(options, io, { http, renderer, needs: 'token' });
    const [{ endpointOf }, { revokeToken }] = await Promise.all([import('../../client/flows/endpoints.js'), import('../../client/responses/token-info.js')]);
    const endpoint = await endpointOf(http, config, 'revocation_endpoint');
    if (endpoint === undefined) throw new UsageError('no revocation endpoint known: the server metadata names none', 'give --revocation-endpoint, or --issuer of a server that offers revocation');
    const subject = await tokenOrCached(token, options, http, io, renderer);
    renderer.step('Token revocation');
    renderer.info(`POST ${endpoint} (client authentication: ${config.authMethod}${options.tokenTypeHint ? `, token_type_hint=${options.tokenTypeHint}` : ''})`);
    await revokeToken(http, config, endpoint, subject, options.tokenTypeHint);
    // RFC 7009 section 2.2: the same 200 for a token that was valid and one that was not.
    renderer.ok(`the server accepted the revocation (HTTP 200; it answers the same for an unknown token, RFC 7009 section 2.2)`);
    return 0;
  } finally {
    await http.close();
  }
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('revoke')
    .description('Revoke a token at the server (RFC 7009); `logout` also forgets the cached login.')
    .argument('[TOKEN]', 'the token (- reads it from stdin); default the access token of the cached login')
    .option('--token-type-hint <H>', 'access_token or refresh_token: where the server should look first');
  addFlowOptions(cmd);
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl client-credentials --auth-url http://127.0.0.1:9000 --client-id photo-service --client-secret photo-service-secret --scope photo
  $ oauthctl revoke --auth-url http://127.0.0.1:9000 --client-id photo-service --client-secret photo-service-secret --token-type-hint access_token`,
    )
    .action(async (token: string | undefined, options: RevokeOptions, command: Command) => {
      setExitCode(command, await runRevoke(token, options, io));
    });
}
