import { promises as fs } from 'node:fs';
import { UsageError } from '../errors.js';
import { readFileIfExists, withFileLock, writeFileAtomic } from './atomic-file.js';
import { configFilePath, type Env } from './paths.js';
import { isTokenStore } from './secret-store.js';
import { isJsonObject } from '../oauth/json.js';

/**
 * The profiles file: named sets of flow options, so that `--profile work` replaces a line of flags.
 *
 * ```json
 * { "profiles": { "mock": { "issuer": "http://127.0.0.1:9000", "client_id": "photo-cli", "pkce": true,
 *                           "scope": "openid photo offline_access" } } }
 * ```
 * Field names are OAuth's own (RFC 6749, RFC 8414). A file that cannot be read or parsed is reported
 * and never written over.
 */
export interface Profile {
  auth_url?: string;
  issuer?: string;
  authorization_endpoint?: string;
  token_endpoint?: string;
  revocation_endpoint?: string;
  client_id?: string;
  client_secret?: string;
  /** Name of an environment variable holding the client secret, so the file need not hold it. */
  client_secret_env?: string;
  auth_method?: 'client_secret_basic' | 'client_secret_post' | 'none';
  redirect_uri?: string;
  scope?: string;
  pkce?: boolean;
  code_challenge_method?: 'S256' | 'plain';
  /** Extra authorization request parameters. */
  params?: Record<string, string>;
  /** The host a git credential helper answers for, as git sends it: `host[:port]`, the port when not the scheme's default. */
  host?: string;
  /** The user name given to git with the token (default `oauth2`). */
  username?: string;
  /** Where this profile's logins are kept: file (default), keyring or none (src/store/secret-store.ts). */
  token_store?: 'file' | 'keyring' | 'none';
}

export interface ConfigFile {
  profiles: Record<string, Profile>;
  /** The other top-level keys allowed, `$schema` and `"//"` comments, are kept as they are. */
  [key: string]: unknown;
}

export interface LoadedConfig {
  path: string;
  exists: boolean;
  config: ConfigFile;
  /** File mode bits, to warn when a file holding a secret is readable by others. */
  mode?: number;
}

type FieldKind = 'url' | 'string' | 'boolean' | 'auth_method' | 'method' | 'params' | 'env_name' | 'host' | 'token_store';
const PROFILE_FIELDS: Readonly<Record<keyof Profile, FieldKind>> = {
  auth_url: 'url',
  issuer: 'url',
  authorization_endpoint: 'url',
  token_endpoint: 'url',
  revocation_endpoint: 'url',
  client_id: 'string',
  client_secret: 'string',
  client_secret_env: 'env_name',
  auth_method: 'auth_method',
  redirect_uri: 'string',
  scope: 'string',
  pkce: 'boolean',
  code_challenge_method: 'method',
  params: 'params',
  host: 'host',
  username: 'string',
  token_store: 'token_store',
};
export const PROFILE_FIELD_NAMES = Object.keys(PROFILE_FIELDS) as (keyof Profile)[];
export const SECRET_PROFILE_FIELDS: ReadonlySet<string> = new Set(['client_secret']);

const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/** Profile names become file names in the token cache: letters, digits, `.`, `_`, `-`. */
export function profileNameProblem(name: string): string | undefined {
  if (PROFILE_NAME.test(name)) return undefined;
  return `profile name ${JSON.stringify(name)} must be 1 to 64 letters, digits, '.', '_' or '-', starting with a letter or digit`;
}

const NOT_OVERWRITTEN = 'fix or move the file; oauthctl never writes over a file it cannot read';

/** Reads and checks the profiles file. A missing file is an empty one; anything else wrong is a UsageError. */
export async function loadConfig(path: string): Promise<LoadedConfig> {
  let text: string | undefined;
  let mode: number | undefined;
  try {
    text = await readFileIfExists(path);
    if (text !== undefined) mode = (await fs.stat(path)).mode & 0o777;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? 'error';
    throw new UsageError(`cannot read config file ${path} (${code}: ${describeErrno(code)})`, NOT_OVERWRITTEN);
  }
  if (text === undefined) return { path, exists: false, config: { profiles: {} } };
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`config file ${path} is not valid JSON: ${(err as Error).message}`, NOT_OVERWRITTEN);
  }
  const problem = configProblem(parsed);
  if (problem) throw new UsageError(`config file ${path}: ${problem}`, NOT_OVERWRITTEN);
  const config = parsed as ConfigFile;
  config.profiles ??= {};
  return mode === undefined ? { path, exists: true, config } : { path, exists: true, config, mode };
}

function describeErrno(code: string): string {
  if (code === 'EACCES' || code === 'EPERM') return 'permission denied';
  if (code === 'EISDIR') return 'it is a directory';
  if (code === 'ENOTDIR') return 'a parent is not a directory';
  return 'unreadable';
}

/** What is wrong with a parsed config, naming the field, or undefined. */
export function configProblem(value: unknown): string | undefined {
  if (!isJsonObject(value)) return 'the top level must be a JSON object {"profiles": {...}}';
  // What schemas/profiles.schema.json allows beside profiles: the schema's own name and "//" comments.
  const unknown = Object.keys(value).find((key) => key !== 'profiles' && key !== '$schema' && !key.startsWith('//'));
  if (unknown !== undefined) return `unknown top-level field ${JSON.stringify(unknown)} (known: profiles, $schema, "//" comments)`;
  if (value.profiles === undefined) return undefined;
  if (!isJsonObject(value.profiles)) return '"profiles" must be an object of named profiles';
  for (const [name, profile] of Object.entries(value.profiles)) {
    const nameProblem = profileNameProblem(name);
    if (nameProblem) return `profiles: ${nameProblem}`;
    const problem = profileProblem(profile);
    if (problem) return `profiles.${name}${problem}`;
  }
  return undefined;
}

/** What is wrong with one profile, as `.field: reason`, or undefined. */
export function profileProblem(profile: unknown): string | undefined {
  if (!isJsonObject(profile)) return ': must be an object';
  for (const [key, value] of Object.entries(profile)) {
    const kind = PROFILE_FIELDS[key as keyof Profile];
    if (!kind) return `.${key}: unknown field (known: ${PROFILE_FIELD_NAMES.join(', ')})`;
    const problem = fieldProblem(kind, value);
    if (problem) return `.${key}: ${problem}`;
  }
  return undefined;
}

function fieldProblem(kind: FieldKind, value: unknown): string | undefined {
  switch (kind) {
    case 'boolean':
      return typeof value === 'boolean' ? undefined : 'must be true or false';
    case 'string':
      return typeof value === 'string' && value !== '' ? undefined : 'must be a non-empty string';
    case 'url':
      if (typeof value !== 'string') return 'must be an http or https URL string';
      return /^https?:\/\//i.test(value) && URL.canParse(value) ? undefined : `must be an http or https URL, got ${JSON.stringify(value)}`;
    case 'env_name':
      return typeof value === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(value) ? undefined : 'must be the name of an environment variable';
    case 'auth_method':
      return value === 'client_secret_basic' || value === 'client_secret_post' || value === 'none' ? undefined : 'must be client_secret_basic, client_secret_post or none';
    case 'method':
      return value === 'S256' || value === 'plain' ? undefined : 'must be S256 or plain';
    case 'host':
      return typeof value === 'string' && hostProblem(value) === undefined ? undefined : (hostProblem(String(value)) ?? 'must be a string');
    case 'token_store':
      return isTokenStore(value) ? undefined : 'must be file, keyring or none';
    case 'params':
      if (!isJsonObject(value)) return 'must be an object of parameter names to string values';
      for (const [k, v] of Object.entries(value)) if (typeof v !== 'string') return `.${k} must be a string`;
      return undefined;
  }
}

/** A host as git sends it (git-credential(1)): a name or address, `:port` when not the scheme's default. */
export function hostProblem(host: string): string | undefined {
  const m = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9]([A-Za-z0-9.-]{0,252}))(?::(\d{1,5}))?$/.exec(host);
  if (!m || (m[3] !== undefined && (Number(m[3]) < 1 || Number(m[3]) > 65535))) {
    return `must be a host as git sends it, host or host:port (e.g. git.example.com or 127.0.0.1:8443), got ${JSON.stringify(host)}`;
  }
  return undefined;
}

/**
 * Changes the profiles file under a lock: read (refusing a file it cannot parse), change, write
 * atomically with mode 0600. `change` may throw to leave the file as it was.
 */
export async function updateConfig(path: string, change: (config: ConfigFile) => void): Promise<ConfigFile> {
  return withFileLock(path, async () => {
    const { config } = await loadConfig(path);
    change(config);
    await writeFileAtomic(path, `${JSON.stringify(config, null, 2)}\n`);
    return config;
  });
}

/** The profile name asked for: `--profile`, else `OAUTHCTL_PROFILE`, else none. */
export function selectedProfileName(flag: string | undefined, env: Env): string | undefined {
  const name = flag ?? (env.OAUTHCTL_PROFILE || undefined);
  if (name === undefined) return undefined;
  const problem = profileNameProblem(name);
  if (problem) throw new UsageError(problem, flag === undefined ? 'check OAUTHCTL_PROFILE' : 'check --profile');
  return name;
}

export interface ProfileSelection {
  name: string;
  profile: Profile;
  path: string;
  /** Warnings worth showing on stderr (e.g. a secret in a file others can read). */
  warnings: string[];
}

/**
 * Loads the named profile (from `--profile` or `OAUTHCTL_PROFILE`); undefined when none is asked for.
 * The file is read only when a profile is asked for.
 */
export async function loadSelectedProfile(options: { profile?: string | undefined; config?: string | undefined }, env: Env): Promise<ProfileSelection | undefined> {
  const name = selectedProfileName(options.profile, env);
  if (name === undefined) return undefined;
  const path = configFilePath(env, options.config);
  const loaded = await loadConfig(path);
  const profile = loaded.config.profiles[name];
  if (!profile) {
    const known = Object.keys(loaded.config.profiles);
    const where = loaded.exists ? path : `${path}, which does not exist`;
    throw new UsageError(
      `no profile named ${JSON.stringify(name)} in ${where}`,
      known.length ? `known profiles: ${known.join(', ')}` : 'create one with `oauthctl profile add NAME --issuer URL --client-id ID`',
    );
  }
  const warnings: string[] = [];
  if (profile.client_secret !== undefined && loaded.mode !== undefined && (loaded.mode & 0o077) !== 0) {
    warnings.push(`${path} holds a client secret and can be read by others (mode ${loaded.mode.toString(8)}); run chmod 600 on it, or use client_secret_env`);
  }
  return { name, profile, path, warnings };
}

/** The client secret a profile gives: its `client_secret`, or the variable `client_secret_env` names. */
export function profileClientSecret(name: string, profile: Profile, env: Env): string | undefined {
  if (profile.client_secret_env !== undefined) {
    const value = env[profile.client_secret_env];
    if (value === undefined || value === '') {
      throw new UsageError(
        `profile ${JSON.stringify(name)} takes its client secret from $${profile.client_secret_env}, which is not set`,
        `export ${profile.client_secret_env}=... or give --client-secret`,
      );
    }
    return value;
  }
  return profile.client_secret;
}

/** A profile as the flow commands' raw option values (commander's camelCase names). */
export interface ProfileFlowOptions {
  authUrl?: string;
  issuer?: string;
  authorizationEndpoint?: string;
  tokenEndpoint?: string;
  revocationEndpoint?: string;
  clientId?: string;
  clientSecret?: string;
  authMethod?: string;
  redirectUri?: string;
  scope?: string[];
  pkce?: boolean;
  codeChallengeMethod?: string;
  param?: string[];
}

/**
 * The profile's values for merging under the flags. Its client secret is resolved from the environment
 * only when `secretGiven` is false, so that a profile naming an unset variable does not fail a run
 * that got the secret from `--client-secret` or `OAUTHCTL_CLIENT_SECRET`.
 */
export function profileToFlowOptions(name: string, profile: Profile, env: Env, secretGiven = false): ProfileFlowOptions {
  const out: ProfileFlowOptions = {};
  if (profile.auth_url !== undefined) out.authUrl = profile.auth_url;
  if (profile.issuer !== undefined) out.issuer = profile.issuer;
  if (profile.authorization_endpoint !== undefined) out.authorizationEndpoint = profile.authorization_endpoint;
  if (profile.token_endpoint !== undefined) out.tokenEndpoint = profile.token_endpoint;
  if (profile.revocation_endpoint !== undefined) out.revocationEndpoint = profile.revocation_endpoint;
  if (profile.client_id !== undefined) out.clientId = profile.client_id;
  const secret = secretGiven ? undefined : profileClientSecret(name, profile, env);
  if (secret !== undefined) out.clientSecret = secret;
  if (profile.auth_method !== undefined) out.authMethod = profile.auth_method;
  if (profile.redirect_uri !== undefined) out.redirectUri = profile.redirect_uri;
  if (profile.scope !== undefined) out.scope = [profile.scope];
  if (profile.pkce !== undefined) out.pkce = profile.pkce;
  if (profile.code_challenge_method !== undefined) out.codeChallengeMethod = profile.code_challenge_method;
  if (profile.params !== undefined) out.param = Object.entries(profile.params).map(([k, v]) => `${k}=${v}`);
  return out;
}

/** Options that together name the server, and the client: a flag for one replaces the profile's whole group. */
const SERVER_OPTIONS = ['authUrl', 'issuer', 'authorizationEndpoint', 'tokenEndpoint'] as const;
const CLIENT_OPTIONS = ['clientId', 'clientSecret', 'authMethod'] as const;

/**
 * Flags over profile: every option the user gave (a value that is not undefined) keeps its value; the
 * rest come from the profile. A flag naming another server (or another client) also drops the
 * profile's other settings of that group, so that a profile's issuer never mixes with `--auth-url`
 * and its client secret never goes to another `--client-id`.
 */
export function mergeUnderFlags<T extends object>(flags: T, profileOptions: ProfileFlowOptions): T {
  const given = flags as Record<string, unknown>;
  const fromProfile: Record<string, unknown> = { ...profileOptions };
  for (const group of [SERVER_OPTIONS, CLIENT_OPTIONS] as const) {
    const anyFlag = group.some((key) => given[key] !== undefined && (group !== CLIENT_OPTIONS || key === 'clientId'));
    if (anyFlag) for (const key of group) delete fromProfile[key];
  }
  const out: Record<string, unknown> = { ...given };
  for (const [key, value] of Object.entries(fromProfile)) {
    if (out[key] === undefined) out[key] = value;
  }
  return out as T;
}
