/**
 * The environment variables oauthctl reads, in one place: `oauthctl --help` lists them, and the table
 * of docs/configuration.md is made from this list (`npm run docs`; test/docs/generated.test.ts checks it).
 */
export interface EnvironmentVariable {
  /** The variable, or several that go together. */
  names: readonly string[];
  effect: string;
}

export const ENVIRONMENT: readonly EnvironmentVariable[] = [
  { names: ['OAUTHCTL_CLIENT_SECRET'], effect: 'the client secret when `--client-secret` is not given' },
  { names: ['OAUTHCTL_USERNAME', 'OAUTHCTL_PASSWORD'], effect: 'account for `login --headless`, `mcp --headless` and `audit`' },
  { names: ['OAUTHCTL_PROFILE'], effect: 'the profile to use when `--profile` is not given' },
  { names: ['OAUTHCTL_TOKEN_STORE'], effect: 'where a new login is kept when `--token-store` is not given: `file` (default), `keyring` or `none`' },
  { names: ['OAUTHCTL_ACCESS_TOKEN'], effect: 'the access token `call` sends when `--token` is not given (instead of a cached login)' },
  { names: ['OAUTHCTL_SECOND_CLIENT_SECRET'], effect: "the secret of the audit's second client (`--second-client-secret`)" },
  { names: ['OAUTHCTL_DEBUG'], effect: 'print a stack trace for an unexpected error' },
  { names: ['BROWSER'], effect: 'the browser command for `login` (the URL is its last argument, or replaces `%s`); quoting works as in a shell for simple cases' },
  { names: ['DISPLAY', 'WAYLAND_DISPLAY'], effect: 'on Linux, whether a graphical browser can open at all (without either, `login` says so at once instead of waiting)' },
  {
    names: ['HTTPS_PROXY', 'HTTP_PROXY', 'NO_PROXY'],
    effect:
      "proxy for every HTTP request oauthctl makes (and their lower-case forms; undici's `EnvHttpProxyAgent`, loaded only when a proxy is set); `NO_PROXY` lists hosts (and `host:port`) to reach directly, `*` for all",
  },
  { names: ['NODE_EXTRA_CA_CERTS'], effect: 'a PEM file of extra CAs to trust (read by Node at start-up; every TLS connection oauthctl makes uses it)' },
  { names: ['NO_COLOR', 'FORCE_COLOR'], effect: 'no colour / colour even when stderr is not a terminal' },
  { names: ['XDG_CONFIG_HOME', 'XDG_STATE_HOME'], effect: 'where profiles (`oauthctl/config.json`) and the token cache live (default `~/.config`, `~/.local/state`)' },
  { names: ['KUBERNETES_EXEC_INFO'], effect: 'set by kubectl for `token --format exec-credential`: the ExecCredential API version it wants' },
];

/** The table of docs/configuration.md, as Markdown. */
export function environmentTable(): string {
  const rows = ENVIRONMENT.map((v) => `| ${v.names.map((n) => `\`${n}\``).join(', ')} | ${v.effect} |`);
  return ['| variable | effect |', '|---|---|', ...rows].join('\n');
}

/** The names, for `oauthctl --help`. */
export function environmentHelp(): string {
  return ENVIRONMENT.map((v) => v.names.join(', ')).join(', ');
}
