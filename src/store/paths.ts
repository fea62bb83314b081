import { isAbsolute, join } from 'node:path';
import { UsageError } from '../errors.js';

/**
 * Where oauthctl keeps its files, from the XDG Base Directory spec, read from the environment the
 * command was given (never process.env, so tests and embedders choose). Relative XDG paths are
 * ignored, as the spec says.
 */
export type Env = Readonly<Record<string, string | undefined>>;

/**
 * The home directory the environment names. Without HOME (or USERPROFILE) and without the XDG
 * variables there is no place for oauthctl's files, and commands that need one say so, rather than
 * guess a directory the caller did not give (an embedding program or a test passes its own env).
 */
export function homeDir(env: Env): string {
  const home = env.HOME || env.USERPROFILE;
  if (home && isAbsolute(home)) return home;
  throw new UsageError("no home directory in the environment for oauthctl's files", 'set HOME, or XDG_CONFIG_HOME and XDG_STATE_HOME, or give --config FILE');
}

function xdg(env: Env, name: string): string | undefined {
  const value = env[name];
  return value && isAbsolute(value) ? value : undefined;
}

/** `$XDG_CONFIG_HOME/oauthctl`, else `~/.config/oauthctl`. */
export function configDir(env: Env): string {
  return join(xdg(env, 'XDG_CONFIG_HOME') ?? join(homeDir(env), '.config'), 'oauthctl');
}

/** The profiles file: `--config FILE` when given, else `config.json` in the config directory. */
export function configFilePath(env: Env, explicit?: string): string {
  return explicit ?? join(configDir(env), 'config.json');
}

/** Cached tokens: `$XDG_STATE_HOME/oauthctl/tokens`, else the config directory's `tokens`. */
export function tokenCacheDir(env: Env): string {
  const state = xdg(env, 'XDG_STATE_HOME');
  return join(state ? join(state, 'oauthctl') : configDir(env), 'tokens');
}
