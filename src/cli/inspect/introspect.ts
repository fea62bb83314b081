import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { formatRelative } from '../../oauth/jwt.js';
import type { IntrospectionResponse } from '../../client/responses/token-info.js';
import { escapeTerminal } from '../../output/escape.js';
import type { IO } from '../../output/io.js';
import { printJson } from '../../output/render.js';
import { addCommonOptions, setExitCode, type CommonOptions } from '../program/command.js';
import { addFlowOptions, type FlowOptionsInput } from '../options/flow-options.js';
import { createFlowRuntime, resolveFlowConfig } from '../options/flow-pipeline.js';
import { tokenOrCached, withCachedClient } from '../options/token-argument.js';

export interface IntrospectOptions extends FlowOptionsInput, CommonOptions {
  tokenTypeHint?: string;
  json?: boolean;
}

/** Token introspection (RFC 7662): asks the server whether a token is active and what it stands for. */
export async function runIntrospect(token: string | undefined, given: IntrospectOptions, io: IO): Promise<number> {
  const { renderer, http } = await createFlowRuntime(given, io);
  try {
    // Introspection authenticates the client (RFC 7662 section 2.1): the cached login's, when none is named.
    const options = await withCachedClient(token, given, io, 'introspection');
    const config = await resolveFlowConfig(options, io, { http, renderer, needs: 'token' });
    const [{ endpointOf }, { introspectToken }] = await Promise.all([import('../../client/flows/endpoints.js'), import('../../client/responses/token-info.js')]);
    const endpoint = await endpointOf(http, config, 'introspection_endpoint');
    if (endpoint === undefined)
      throw new UsageError('no introspection endpoint known: the server metadata names none', 'give --introspection-endpoint, or --issuer of a server that offers introspection');
    const subject = await tokenOrCached(token, options, http, io, renderer);
    renderer.step('Token introspection');
    renderer.info(`POST ${endpoint} (client authentication: ${config.authMethod})`);
    const answer = await introspectToken(http, config, endpoint, subject, options.tokenTypeHint);
    if (options.json) printJson(io, answer);
    else io.stdout.write(describeIntrospection(answer, Date.now()));
    return 0;
  } finally {
    await http.close();
  }
}

/** RFC 7662 section 2.2 in words: active or not, then subject, client, scope and expiry. */
export function describeIntrospection(answer: IntrospectionResponse, nowMs: number): string {
  if (!answer.active) return 'inactive: the server does not consider this token valid (expired, revoked, unknown, or not for this client)\n';
  const lines = ['active'];
  const field = (name: string, value: unknown) => {
    if (value !== undefined) lines.push(`${name}: ${escapeTerminal(typeof value === 'string' ? value : JSON.stringify(value))}`);
  };
  field('subject', answer.sub);
  field('username', answer.username);
  field('client', answer.client_id);
  field('scope', answer.scope);
  field('token type', answer.token_type);
  field('audience', answer.aud);
  field('issuer', answer.iss);
  if (typeof answer.exp === 'number') lines.push(`expires: ${new Date(answer.exp * 1000).toISOString()} (${formatRelative(answer.exp * 1000 - nowMs)})`);
  if (typeof answer.iat === 'number') lines.push(`issued: ${new Date(answer.iat * 1000).toISOString()}`);
  return `${lines.join('\n')}\n`;
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('introspect')
    .description('Ask the server whether a token is active and what it stands for (RFC 7662).')
    .argument('[TOKEN]', 'the token (- reads it from stdin); default the access token of the cached login')
    .option('--token-type-hint <H>', 'access_token or refresh_token: where the server should look first');
  addFlowOptions(cmd).option('--json', 'print the introspection response exactly as received');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Exit 0 whether the token is active or not; the answer says which.

Examples:
  $ oauthctl introspect "$(oauthctl client-credentials --auth-url http://127.0.0.1:9000 --client-id photo-service --client-secret photo-service-secret --no-cache | sed -n 's/^access_token=//p')" --auth-url http://127.0.0.1:9000 --client-id photo-web --client-secret photo-web-secret
  $ oauthctl client-credentials --auth-url http://127.0.0.1:9000 --client-id photo-service --client-secret photo-service-secret --scope photo
  $ oauthctl introspect --auth-url http://127.0.0.1:9000 --client-id photo-service --client-secret photo-service-secret --json`,
    )
    .action(async (token: string | undefined, options: IntrospectOptions, command: Command) => {
      setExitCode(command, await runIntrospect(token, options, io));
    });
}
