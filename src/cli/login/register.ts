import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import type { ClientRegistrationRequest } from '../../client/resources/registration.js';
import { parseScope } from '../../oauth/scope.js';
import type { IO } from '../../output/io.js';
import { escapeLogValue } from '../../output/escape.js';
import { printJson } from '../../output/render.js';
import { addCommonOptions, collect, parseHttpUrl, setExitCode, type CommonOptions } from '../program/command.js';
import { DEFAULT_REDIRECT_URI } from '../options/flow-options.js';
import { createFlowRuntime } from '../options/flow-pipeline.js';
import { addHttpTimeoutOption, type HttpTimeoutOption } from '../options/http-timeout.js';

export interface RegisterOptions extends CommonOptions, HttpTimeoutOption {
  issuer?: string;
  authUrl?: string;
  protectedResource?: string;
  redirectUri?: string[];
  clientName?: string;
  grantType?: string[];
  authMethod?: string;
  scope?: string[];
  jwksUri?: string;
  initialAccessToken?: string;
  saveProfile?: string;
  config?: string;
  delete?: boolean;
  clientId?: string;
  json?: boolean;
  insecure?: boolean;
}

const AUTH_METHODS = ['none', 'client_secret_basic', 'client_secret_post', 'client_secret_jwt', 'private_key_jwt'];
const LOOPBACK = /^http:\/\/(127\.0\.0\.1|localhost|\[::1\])[:/]/;

/** Dynamic client registration (RFC 7591), or with --delete its removal (RFC 7592 section 2.3). */
export async function runRegister(options: RegisterOptions, io: IO): Promise<number> {
  const { renderer, http } = await createFlowRuntime(options, io);
  try {
    const issuer = await serverOf(options, { http, renderer });
    const store = await import('../../store/registrations.js');
    if (options.delete) {
      const kept = await store.readRegistration(io.env, issuer);
      if (!kept || (options.clientId !== undefined && kept.client_id !== options.clientId)) {
        throw new UsageError(
          `no registration${options.clientId !== undefined ? ` of ${options.clientId}` : ''} is kept for ${issuer}`,
          'oauthctl register keeps the registrations it makes; others are deleted at the server by hand',
        );
      }
      renderer.step('Client registration deletion (RFC 7592)');
      renderer.info(`DELETE ${kept.registration_client_uri ?? '(no registration_client_uri)'}`);
      const outcome = await (await import('../../client/resources/registration.js')).deleteRegistration(http, kept);
      await store.forgetRegistration(io.env, issuer);
      if (outcome === 'gone') renderer.warn(`${issuer} no longer knows client ${escapeLogValue(kept.client_id)} (RFC 7592 section 2.3): forgot the local copy`);
      else renderer.ok(`deleted client ${escapeLogValue(kept.client_id)} at ${issuer}`);
      if (options.json) printJson(io, { deleted: outcome === 'deleted', forgotten: true, client_id: kept.client_id });
      return 0;
    }
    const request = registrationRequest(options);
    const { registerAt } = await import('../options/protected-resource-options.js');
    const registered = (await registerAt(issuer, request, options.initialAccessToken, io, { http, renderer }))!;
    if (options.saveProfile !== undefined) await saveProfile(options.saveProfile, issuer, registered, request, options, io, renderer);
    if (options.json) printJson(io, registered.response);
    // The server chose the client_id: one line whatever it holds, no control character reaching a terminal.
    else io.stdout.write(`client_id=${escapeLogValue(registered.client_id)}\n`);
    return 0;
  } finally {
    await http.close();
  }
}

/** The authorization server: --issuer, --auth-url (taken as the issuer), or the one --protected-resource names. */
async function serverOf(options: RegisterOptions, ctx: Parameters<typeof import('../options/protected-resource-options.js').applyProtectedResource>[1]): Promise<string> {
  if (options.protectedResource !== undefined) {
    const { applyProtectedResource } = await import('../options/protected-resource-options.js');
    return (await applyProtectedResource({ protectedResource: options.protectedResource, issuer: options.issuer }, ctx)).issuer!;
  }
  const issuer = options.issuer ?? options.authUrl?.replace(/\/+$/, '');
  if (issuer === undefined) throw new UsageError('no authorization server given', 'use --issuer URL, --auth-url URL or --protected-resource URL');
  return issuer;
}

/** RFC 7591 section 2 from the options: a native public client on a loopback redirect URI by default. */
function registrationRequest(options: RegisterOptions): ClientRegistrationRequest {
  const redirectUris = options.redirectUri ?? [DEFAULT_REDIRECT_URI];
  for (const uri of redirectUris) parseHttpUrlOrPrivate(uri);
  const method = options.authMethod ?? 'none';
  if (!AUTH_METHODS.includes(method)) throw new UsageError(`--auth-method ${JSON.stringify(method)} is not one a registration can ask for`, `use one of ${AUTH_METHODS.join(', ')}`);
  if (method === 'private_key_jwt' && options.jwksUri === undefined) throw new UsageError('--auth-method private_key_jwt needs --jwks-uri URL, where the server finds the public key');
  const scope = options.scope === undefined ? undefined : parseScope(options.scope).join(' ');
  return {
    redirect_uris: redirectUris,
    token_endpoint_auth_method: method,
    grant_types: options.grantType ?? ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    client_name: options.clientName ?? 'oauthctl',
    ...(scope !== undefined && scope !== '' && { scope }),
    ...(options.jwksUri !== undefined && { jwks_uri: options.jwksUri }),
    ...(redirectUris.every((u) => LOOPBACK.test(u)) && { application_type: 'native' }),
  };
}

/** A redirect URI: absolute, no fragment (RFC 6749 section 3.1.2); a private scheme is fine (RFC 8252 section 7.1). */
function parseHttpUrlOrPrivate(uri: string): void {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    throw new UsageError(`--redirect-uri is not a valid absolute URI: ${JSON.stringify(uri)}`, `e.g. ${DEFAULT_REDIRECT_URI}`);
  }
  if (url.hash !== '' || uri.includes('#')) throw new UsageError('--redirect-uri must not contain a fragment (RFC 6749 section 3.1.2)');
}

async function saveProfile(
  name: string,
  issuer: string,
  registered: { client_id: string; client_secret?: string; token_endpoint_auth_method: string },
  request: ClientRegistrationRequest,
  options: RegisterOptions,
  io: IO,
  renderer: { ok(text: string): void; warn(text: string): void },
): Promise<void> {
  const [{ profileNameProblem, updateConfig }, { configFilePath }] = await Promise.all([import('../../store/config-store.js'), import('../../store/paths.js')]);
  const problem = profileNameProblem(name);
  if (problem) throw new UsageError(`--save-profile: ${problem}`);
  const method = registered.token_endpoint_auth_method;
  const path = configFilePath(io.env, options.config);
  await updateConfig(path, (config) => {
    config.profiles[name] = {
      issuer,
      client_id: registered.client_id,
      ...(registered.client_secret !== undefined && { client_secret: registered.client_secret }),
      ...((method === 'none' || method === 'client_secret_basic' || method === 'client_secret_post') && { auth_method: method }),
      ...(request.redirect_uris?.[0] !== undefined && { redirect_uri: request.redirect_uris[0] }),
      ...(request.scope !== undefined && { scope: request.scope }),
    };
  });
  renderer.ok(`saved profile ${name} in ${path}: oauthctl login --profile ${name}`);
  if (registered.client_secret !== undefined) renderer.warn('the client secret is stored in the profiles file (mode 0600)');
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('register')
    .description('Register a client at an authorization server (RFC 7591) and keep the registration; --delete removes it there (RFC 7592).')
    .option('--issuer <URL>', 'the authorization server (its metadata names the registration_endpoint)', parseHttpUrl('--issuer'))
    .option('--auth-url <URL>', 'the authorization server base, taken as the issuer', parseHttpUrl('--auth-url'))
    .option('--protected-resource <URL>', "register at this protected resource's authorization server (RFC 9728)", parseHttpUrl('--protected-resource'))
    .option('--redirect-uri <URL>', `a redirect URI; repeatable (default ${DEFAULT_REDIRECT_URI}: a loopback URI takes any port)`, collect)
    .option('--client-name <N>', 'the client_name shown on consent pages (default oauthctl)')
    .option('--grant-type <G>', 'a grant type; repeatable (default authorization_code and refresh_token)', collect)
    .option('--auth-method <M>', `token endpoint authentication: ${AUTH_METHODS.join(', ')} (default none: a public client)`)
    .option('--scope <S>', 'the scope the client may ask for; repeatable', collect)
    .option('--jwks-uri <URL>', 'where the server finds the public key of a private_key_jwt client', parseHttpUrl('--jwks-uri'))
    .option('--initial-access-token <T>', 'the bearer token a server that does not register anyone asks for (RFC 7591 section 3)')
    .option('--save-profile <NAME>', 'also save a profile for the new client, for login --profile NAME')
    .option('--config <FILE>', 'the profiles file for --save-profile')
    .option('--delete', 'delete the kept registration at the server (RFC 7592) and forget it')
    .option('--client-id <ID>', 'with --delete: the client that must be the kept one')
    .option('--json', 'print the registration response as received')
    .option('--insecure', 'do not verify TLS certificates (test servers only; prints a warning)');
  addCommonOptions(addHttpTimeoutOption(cmd))
    .addHelpText(
      'after',
      `
The registration (client secret and registration access token included) is kept per server, 0600, and
login --register (or login --protected-resource without --client-id) uses it.

Examples:
  $ oauthctl register --issuer http://127.0.0.1:9000 --client-name "my cli" --scope photo --json
  $ oauthctl register --protected-resource http://127.0.0.1:9000/api
  $ oauthctl register --delete --issuer http://127.0.0.1:9000`,
    )
    .action(async (options: RegisterOptions, command: Command) => {
      if (options.delete && (options.redirectUri || options.clientName || options.grantType || options.scope || options.saveProfile)) {
        throw new UsageError('--delete takes no registration metadata', 'oauthctl register --delete --issuer URL [--client-id ID]');
      }
      setExitCode(command, await runRegister(options, io));
    });
}
