import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { loadConfig, profileNameProblem, profileProblem, SECRET_PROFILE_FIELDS, updateConfig, type Profile, type ProfileFlowOptions } from '../../store/config-store.js';
import { configFilePath } from '../../store/paths.js';
import { redact } from '../../output/redact.js';
import { escapeLogValue } from '../../output/escape.js';
import { createRenderer, printJson } from '../../output/render.js';
import { addCommonOptions, collect, parseHttpUrl, setExitCode, suggestSimilar, type CommonOptions } from '../program/command.js';
import type { IO } from '../../output/io.js';

interface FileOptions extends CommonOptions {
  config?: string;
  json?: boolean;
}

/** `profile add` takes the flow options a profile keeps, plus where the secret comes from and --force. */
export interface ProfileAddOptions extends FileOptions, ProfileFlowOptions {
  clientSecretEnv?: string;
  host?: string;
  username?: string;
  tokenStore?: string;
  force?: boolean;
}

function checkName(name: string): string {
  const problem = profileNameProblem(name);
  if (problem) throw new UsageError(problem);
  return name;
}

/** `oauthctl profile list`: names (and where they point). */
export async function runProfileList(options: FileOptions & { names?: boolean }, io: IO): Promise<number> {
  const path = configFilePath(io.env, options.config);
  const { config, exists } = await loadConfig(path);
  const entries = Object.entries(config.profiles);
  if (options.json) {
    printJson(io, { path, profiles: entries.map(([name, p]) => ({ name, ...redactProfile(p, options.showSecrets) })) });
  } else if (options.names) {
    for (const [name] of entries) io.stdout.write(`${escapeLogValue(name)}\n`);
  } else if (entries.length === 0) {
    io.stderr.write(`No profiles ${exists ? 'in' : 'yet;'} ${path}${exists ? '' : ' does not exist'}. Add one with: oauthctl profile add NAME --issuer URL --client-id ID\n`);
  } else {
    const width = Math.max(...entries.map(([n]) => n.length));
    for (const [name, p] of entries) {
      const server = p.issuer ?? p.auth_url ?? p.token_endpoint ?? '(no server)';
      io.stdout.write(`${escapeLogValue(name.padEnd(width))}  ${escapeLogValue(server)}  ${escapeLogValue(p.client_id ?? '(no client id)')}\n`);
    }
  }
  return 0;
}

function redactProfile(profile: Profile, show = false): Profile {
  const out: Record<string, unknown> = { ...profile };
  for (const key of SECRET_PROFILE_FIELDS) {
    const value = out[key];
    if (typeof value === 'string') out[key] = redact(value, show);
  }
  return out as Profile;
}

/** `oauthctl profile show NAME`: its fields, the client secret redacted unless --show-secrets. */
export async function runProfileShow(name: string, options: FileOptions, io: IO): Promise<number> {
  const path = configFilePath(io.env, options.config);
  const { config } = await loadConfig(path);
  const profile = config.profiles[name];
  if (!profile) throw new UsageError(`no profile named ${JSON.stringify(name)} in ${path}`, 'see `oauthctl profile list`');
  const shown = redactProfile(profile, options.showSecrets);
  if (options.json) {
    printJson(io, { name, path, profile: shown });
    return 0;
  }
  io.stdout.write(`${escapeLogValue(name)} (${escapeLogValue(path)})\n`);
  for (const [key, value] of Object.entries(shown)) {
    let text = typeof value === 'string' ? value : JSON.stringify(value);
    if (key === 'client_secret_env') text += io.env[String(value)] ? ' (set)' : ' (not set in this environment)';
    io.stdout.write(`  ${escapeLogValue(key)}: ${escapeLogValue(text)}\n`);
  }
  return 0;
}

/** Builds the stored profile from the flags of `profile add`. */
export function profileFromOptions(options: ProfileAddOptions): Profile {
  const p: Record<string, unknown> = {};
  const set = (key: keyof Profile, value: unknown) => {
    if (value !== undefined) p[key] = value;
  };
  set('auth_url', options.authUrl);
  set('issuer', options.issuer);
  set('authorization_endpoint', options.authorizationEndpoint);
  set('token_endpoint', options.tokenEndpoint);
  set('revocation_endpoint', options.revocationEndpoint);
  set('client_id', options.clientId);
  set('client_secret', options.clientSecret);
  set('client_secret_env', options.clientSecretEnv);
  set('auth_method', options.authMethod);
  set('redirect_uri', options.redirectUri);
  if (options.scope?.length) p.scope = options.scope.join(' ').split(/[ +]+/).filter(Boolean).join(' ');
  set('pkce', options.pkce);
  set('code_challenge_method', options.codeChallengeMethod);
  set('host', options.host?.toLowerCase());
  set('username', options.username);
  set('token_store', options.tokenStore);
  if (options.param?.length) {
    const params: Record<string, string> = {};
    for (const kv of options.param) {
      const eq = kv.indexOf('=');
      if (eq <= 0) throw new UsageError(`--param needs name=value, got ${JSON.stringify(kv)}`);
      params[kv.slice(0, eq)] = kv.slice(eq + 1);
    }
    p.params = params;
  }
  if (p.client_secret !== undefined && p.client_secret_env !== undefined) {
    throw new UsageError('--client-secret and --client-secret-env cannot be used together', 'prefer --client-secret-env: the secret then stays out of the file');
  }
  if (Object.keys(p).length === 0) {
    throw new UsageError('a profile needs at least one setting', 'e.g. oauthctl profile add NAME --issuer https://id.example.com --client-id cli --pkce');
  }
  const problem = profileProblem(p);
  if (problem) throw new UsageError(`profile${problem}`);
  return p as Profile;
}

export async function runProfileAdd(name: string, options: ProfileAddOptions, io: IO): Promise<number> {
  const profile = profileFromOptions(options);
  const path = configFilePath(io.env, options.config);
  let replaced = false;
  await updateConfig(path, (config) => {
    if (config.profiles[name] && !options.force) {
      throw new UsageError(`profile ${JSON.stringify(name)} already exists in ${path}`, 'add --force to replace it, or remove it first');
    }
    replaced = config.profiles[name] !== undefined;
    config.profiles[name] = profile;
  });
  const renderer = createRenderer(io, options);
  renderer.ok(`${replaced ? 'Replaced' : 'Added'} profile ${name} in ${path}`);
  if (profile.client_secret !== undefined) {
    renderer.warn('the client secret is stored in the file (mode 0600); --client-secret-env VAR keeps it out of the file');
  }
  renderer.info(`Use it with: oauthctl login --profile ${name}   (or export OAUTHCTL_PROFILE=${name})`);
  return 0;
}

export async function runProfileRemove(name: string, options: FileOptions, io: IO): Promise<number> {
  const path = configFilePath(io.env, options.config);
  await updateConfig(path, (config) => {
    if (!config.profiles[name]) throw new UsageError(`no profile named ${JSON.stringify(name)} in ${path}`, 'see `oauthctl profile list`');
    delete config.profiles[name];
  });
  createRenderer(io, options).ok(`Removed profile ${name} from ${path} (cached tokens stay until \`oauthctl logout --profile ${name}\`)`);
  return 0;
}

function parseAuthMethod(value: string): string {
  if (!['client_secret_basic', 'client_secret_post', 'none'].includes(value)) {
    throw new UsageError(`--auth-method must be client_secret_basic, client_secret_post or none, got ${JSON.stringify(value)}`);
  }
  return value;
}

function parseChallengeMethod(value: string): string {
  if (value !== 'S256' && value !== 'plain') throw new UsageError(`--code-challenge-method must be S256 or plain, got ${JSON.stringify(value)}`);
  return value;
}

const CONFIG_HELP = 'the profiles file (default $XDG_CONFIG_HOME/oauthctl/config.json)';

export function register(program: Command, io: IO): void {
  const profile = program
    .command('profile')
    .description('Manage named profiles of flow options in the config file (use them with --profile NAME or OAUTHCTL_PROFILE).')
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl profile add mock --issuer http://127.0.0.1:9000 --client-id photo-cli --pkce --scope "openid photo offline_access"
  $ oauthctl profile add work --issuer http://127.0.0.1:9000 --client-id photo-web --client-secret-env WORK_SECRET
  $ oauthctl profile add git --auth-url http://127.0.0.1:9000 --client-id photo-cli --scope "openid photo offline_access" --host 127.0.0.1:9000
  $ oauthctl profile list
  $ oauthctl profile show work
  $ oauthctl login --profile mock`,
    );

  addCommonOptions(
    profile
      .command('list', { isDefault: true })
      .description('list the profiles (the default)')
      .option('--config <FILE>', CONFIG_HELP)
      .option('--names', 'only the names, one a line')
      .option('--json', 'print {"path","profiles":[...]}')
      // `profile ad x` lands here (list is the default): named below as the mistyped subcommand it is.
      .allowExcessArguments(true),
  ).action(async (options: FileOptions & { names?: boolean }, cmd: Command) => {
    const [word] = cmd.args;
    if (word !== undefined) {
      const names = profile.commands.flatMap((c) => [c.name(), ...c.aliases()]);
      const suggestion = suggestSimilar(word, names);
      throw new UsageError(`unknown command '${word}'${suggestion ? ` (did you mean ${suggestion}?)` : ''}`, `see 'oauthctl profile --help'`);
    }
    setExitCode(cmd, await runProfileList(options, io));
  });

  addCommonOptions(
    profile
      .command('show')
      .description('show a profile (the client secret redacted unless --show-secrets)')
      .argument('<NAME>', 'profile name', checkName)
      .option('--config <FILE>', CONFIG_HELP)
      .option('--json', 'print {"name","path","profile"}'),
  ).action(async (name: string, options: FileOptions, cmd: Command) => setExitCode(cmd, await runProfileShow(name, options, io)));

  addCommonOptions(
    profile
      .command('add')
      .description('add (or with --force replace) a profile')
      .argument('<NAME>', 'profile name: letters, digits, . _ -', checkName)
      .option('--config <FILE>', CONFIG_HELP)
      .option('--auth-url <URL>', 'authorization server base: {auth_url}/authorize and {auth_url}/token', parseHttpUrl('--auth-url'))
      .option('--issuer <URL>', "discover the endpoints from the issuer's metadata", parseHttpUrl('--issuer'))
      .option('--authorization-endpoint <URL>', 'the authorization endpoint', parseHttpUrl('--authorization-endpoint'))
      .option('--token-endpoint <URL>', 'the token endpoint', parseHttpUrl('--token-endpoint'))
      .option('--revocation-endpoint <URL>', 'the revocation endpoint (RFC 7009), when discovery does not give one', parseHttpUrl('--revocation-endpoint'))
      .option('--client-id <ID>', 'client id')
      .option('--client-secret <S>', 'client secret, stored in the file (prefer --client-secret-env)')
      .option('--client-secret-env <VAR>', 'read the client secret from this environment variable at run time')
      .option('--auth-method <M>', 'client_secret_basic, client_secret_post or none', parseAuthMethod)
      .option('--redirect-uri <URL>', 'redirect URI')
      .option('--scope <S>', 'scope, space- or plus-separated, may be repeated', collect)
      .option('--pkce', 'use PKCE (S256; the default)')
      .option('--no-pkce', 'send no PKCE with this profile')
      .option('--code-challenge-method <M>', 'S256 or plain', parseChallengeMethod)
      .option('--param <k=v>', 'extra authorization request parameter, may be repeated', collect)
      .option('--host <HOST>', 'answer `oauthctl credential git` for this host, as git sends it: host[:port], the port when not the default')
      .option('--username <U>', 'the user name git gets with the token (default oauth2)')
      .option('--token-store <STORE>', 'where its logins are kept: file (default), keyring (the OS keychain) or none')
      .option('--force', 'replace a profile of the same name'),
  ).action(async (name: string, options: ProfileAddOptions, cmd: Command) => setExitCode(cmd, await runProfileAdd(name, options, io)));

  addCommonOptions(profile.command('remove').alias('rm').description('remove a profile').argument('<NAME>', 'profile name', checkName).option('--config <FILE>', CONFIG_HELP)).action(
    async (name: string, options: FileOptions, cmd: Command) => setExitCode(cmd, await runProfileRemove(name, options, io)),
  );
}
