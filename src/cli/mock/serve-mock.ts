import type { Command } from 'commander';
import { promises as fs } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../../errors.js';
import {
  ACCESS_TOKEN_FORMATS,
  adminMode,
  createMockServer,
  formatLogEntry,
  issuerUrlProblem,
  loadMockConfig,
  MockConfigError,
  OpensslMissingError,
  type AccessTokenFormat,
  type MockClient,
  type MockConfigInput,
  type MockServer,
  type MockTlsOption,
} from '../../mock/index.js';
import { redact } from '../../output/redact.js';
import { addCommonOptions, parseInteger, setExitCode } from '../program/command.js';
import type { IO } from '../../output/io.js';

export interface ServeMockOptions {
  host?: string;
  port?: number;
  config?: string;
  /** false with --no-consent. */
  consent?: boolean;
  autoLogin?: string;
  /** --fapi2: the configuration's security_profile "fapi2" (FAPI 2.0 Security Profile server rules). */
  fapi2?: boolean;
  /** Overrides the configuration's access_token_format. */
  accessTokenFormat?: string;
  /** HTTPS with a certificate made at start, or --tls-cert/--tls-key. */
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  /** The public issuer (behind a proxy, in a container). */
  issuerUrl?: string;
  /** --admin: the admin API on when listening beyond loopback too. */
  admin?: boolean;
  json?: boolean;
  quiet?: boolean;
  showSecrets?: boolean;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);
/** How long requests in flight may take to finish after SIGINT/SIGTERM. */
const SHUTDOWN_GRACE_MS = 5000;

/**
 * Starts the mock and keeps it running until `stop` fires (SIGINT/SIGTERM from the command), then
 * closes it. Resolves to the exit code.
 */
export async function runServeMock(options: ServeMockOptions, io: IO, stop: AbortSignal): Promise<number> {
  let input: MockConfigInput | undefined;
  let server: MockServer;
  const format = options.accessTokenFormat;
  if (format !== undefined && !ACCESS_TOKEN_FORMATS.includes(format as AccessTokenFormat)) {
    throw new UsageError(`--access-token-format must be ${ACCESS_TOKEN_FORMATS.join(' or ')}, not ${JSON.stringify(format)}`, 'use jwt (RFC 9068, the default) or opaque');
  }
  const issuerProblem = options.issuerUrl !== undefined ? issuerUrlProblem(options.issuerUrl) : undefined;
  if (issuerProblem) throw new UsageError(`--issuer-url ${options.issuerUrl}: ${issuerProblem}`, 'give the URL clients reach the mock at, such as http://mock:9000');
  if (options.config !== undefined) {
    try {
      input = await loadMockConfig(options.config);
    } catch (err) {
      if (err instanceof MockConfigError) throw new UsageError(err.message, 'give a readable JSON or JSONC file');
      throw err;
    }
  }
  const defaults = input === undefined;
  const tls = await tlsOption(options);
  if (format !== undefined) input = { ...input, access_token_format: format as AccessTokenFormat };
  if (options.fapi2) input = { ...input, security_profile: 'fapi2' };
  try {
    server = await createMockServer(input, {
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      consent: options.consent !== false,
      defaultSigningAlg: 'RS256',
      ...(options.issuerUrl !== undefined ? { issuerUrl: options.issuerUrl } : {}),
      ...(options.autoLogin !== undefined ? { autoLogin: options.autoLogin } : {}),
      ...(options.admin ? { admin: true } : {}),
      ...(tls !== undefined ? { tls } : {}),
      ...(options.quiet ? {} : { log: (entry) => io.stderr.write(`${options.json ? JSON.stringify(entry) : formatLogEntry(entry)}\n`) }),
    });
  } catch (err) {
    if (err instanceof OpensslMissingError) throw new UsageError(`${err.message}; it is not installed here`, 'install openssl, or give your own --tls-cert FILE --tls-key FILE');
    if (err instanceof MockConfigError) {
      const where = options.config !== undefined && !err.errors[0]?.startsWith('auto-login') ? `invalid configuration in ${options.config}: ` : '';
      throw new UsageError(`${where}${err.errors.join('; ')}`, 'fix the fields named and start again');
    }
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EADDRINUSE') throw new UsageError(`port ${options.port} on ${options.host ?? '127.0.0.1'} is already in use`, 'choose another --port, or --port 0 for a free one');
    if (code === 'EADDRNOTAVAIL' || code === 'ENOTFOUND' || code === 'EACCES') {
      throw new UsageError(`cannot listen on ${options.host ?? '127.0.0.1'}:${options.port ?? 0} (${code})`, 'use --host 127.0.0.1 and a port above 1023');
    }
    throw err;
  }

  // The CA of --tls, in a file for NODE_EXTRA_CA_CERTS and curl --cacert; removed at exit.
  const caDir = server.ca !== undefined ? await fs.mkdtemp(join(tmpdir(), 'oauthctl-mock-ca-')) : undefined;
  const caFile = caDir !== undefined ? join(caDir, 'ca.pem') : undefined;
  if (caFile !== undefined) await fs.writeFile(caFile, server.ca!, { mode: 0o644 });
  if (options.json) io.stdout.write(`${JSON.stringify(announcement(server, caFile))}\n`);
  // -q: the one line a script needs (where the mock listens; --port 0 picks it), not the banner.
  else if (options.quiet) io.stdout.write(`${server.authUrl}\n`);
  else io.stdout.write(describe(server, defaults, options, caFile));
  if (options.host !== undefined && !LOOPBACK.has(options.host)) {
    io.stderr.write(`warning: listening on ${options.host}, not only on loopback: anyone who reaches this address can use the mock\n`);
    if (options.admin) io.stderr.write(`warning: --admin: anyone who reaches ${server.authUrl}/_mock/ can mint tokens and change the mock\n`);
  }

  if (!stop.aborted) await new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }));
  // Stop accepting; what is in flight gets a few seconds to finish.
  await server.close({ graceMs: SHUTDOWN_GRACE_MS });
  if (caDir !== undefined) await fs.rm(caDir, { recursive: true, force: true });
  return 0;
}

/** --tls, --tls-cert and --tls-key: undefined for plain HTTP. */
async function tlsOption(options: ServeMockOptions): Promise<MockTlsOption | undefined> {
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined))
    throw new UsageError('--tls-cert and --tls-key go together', 'give both files (PEM), or --tls alone for a certificate made at start');
  if (options.tlsCert === undefined || options.tlsKey === undefined) return options.tls ? true : undefined;
  const read = async (flag: string, file: string) => {
    try {
      const text = await fs.readFile(file, 'utf8');
      if (!text.includes('-----BEGIN')) throw new UsageError(`${flag} ${file} is not a PEM file`, 'give a PEM certificate and its PEM private key');
      return text;
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`cannot read ${flag} ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'give a readable PEM file');
    }
  };
  return { cert: await read('--tls-cert', options.tlsCert), key: await read('--tls-key', options.tlsKey) };
}

/** The `--json` line: the contract's fields for the root issuer, the CA file of --tls, and the named issuers when there are any. */
function announcement(server: MockServer, caFile: string | undefined): Record<string, unknown> {
  const line: Record<string, unknown> = { issuer: server.issuer, auth_url: server.authUrl, base_url: server.baseUrl };
  if (caFile !== undefined) line.ca_file = caFile;
  if (server.issuers.size > 0) line.issuers = Object.fromEntries([...server.issuers].map(([name, i]) => [name, { issuer: i.issuer, auth_url: i.authUrl, base_url: i.baseUrl }]));
  return line;
}

function clientLine(client: MockClient, secret: (s: string) => string): string {
  const methods = client.tokenEndpointAuthMethods.join(' or ');
  const kind = client.clientSecret !== undefined ? `secret ${secret(client.clientSecret)}, ${methods}` : client.tokenEndpointAuthMethods.includes('none') ? 'public, no secret' : methods;
  const pkce = client.requirePkce ? ', PKCE required' : '';
  const grants = client.grantTypes.has('authorization_code') ? '' : `, grants ${[...client.grantTypes].join(' ')}`;
  return `  client             ${client.clientId} (${kind}${pkce}${grants})`;
}

function describe(server: MockServer, defaults: boolean, options: ServeMockOptions, caFile: string | undefined): string {
  // The same rule with and without --config (CONTRACT: secrets only with --show-secrets); the
  // out-of-the-box ones are in --help, the README and docs/mock.md.
  const show = options.showSecrets === true;
  const secret = (s: string) => (show ? s : redact(s));
  const lines = [
    'oauthctl mock authorization server',
    `  issuer, auth_url   ${server.issuer}`,
    `  authorize          ${server.authUrl}/authorize`,
    `  token              ${server.authUrl}/token`,
    `  metadata           ${server.issuer}/.well-known/openid-configuration`,
    `  base_url (API)     ${server.baseUrl}   GET /photos (scope photo), GET /me`,
  ];
  if (server.config.mcp.enabled) lines.push(`  MCP server         ${server.baseUrl}/mcp   Streamable HTTP, tools whoami and echo`);
  for (const user of server.config.users.values()) lines.push(`  user               ${user.username} / ${secret(user.password)}`);
  for (const client of server.config.clients.values()) {
    lines.push(clientLine(client, secret));
    if (client.redirectUris.length > 0) lines.push(`                     redirect URIs: ${client.redirectUris.join(' ')}`);
  }
  for (const [name, issuer] of server.issuers) {
    lines.push(`  issuer ${name.padEnd(11)} ${issuer.issuer}   metadata ${server.issuer}/.well-known/oauth-authorization-server/${name}`);
    for (const user of issuer.config.users.values()) lines.push(`    user             ${user.username} / ${secret(user.password)}`);
    for (const client of issuer.config.clients.values()) lines.push(`  ${clientLine(client, secret)}`);
  }
  if (defaults) lines.push('  loopback redirect URIs match on any port (RFC 8252 section 7.3)');
  if (caFile !== undefined) lines.push(`  TLS CA             ${caFile}   (NODE_EXTRA_CA_CERTS=${caFile} to trust it)`);
  if (server.config.accessTokenFormat === 'opaque') lines.push('  access tokens      opaque (checked by lookup: the API and /introspect)');
  lines.push(
    `  admin API          ${adminMode(options.host ?? '127.0.0.1', options.admin) === 'off' ? 'off (not on loopback; --admin turns it on)' : `${server.authUrl}/_mock/ (flows page; tokens, faults, clock, keys)`}`,
  );
  if (options.autoLogin !== undefined) lines.push(`  auto-login         as ${options.autoLogin}: no login or consent page`);
  else if (options.consent === false) lines.push('  consent            off (--no-consent)');
  if (!show) lines.push(`  secrets            redacted (--show-secrets prints them${defaults ? '; the defaults: serve-mock --help' : ''})`);
  lines.push('Press Ctrl+C to stop. Requests are logged on stderr.', '');
  return lines.join('\n');
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('serve-mock')
    .description('Run the built-in mock authorization server: login and consent pages, PKCE, JWT access tokens, refresh, discovery, and a protected API.')
    .option('--host <H>', 'address to listen on (default 127.0.0.1, loopback only)')
    .option('--port <P>', 'port to listen on; 0 picks a free one (default 0)', parseInteger('--port', 0, 65535))
    .option('--config <FILE>', 'clients, users, scopes, lifetimes, signing algorithm and access token format from a JSON or JSONC file')
    .option('--no-consent', 'never show the consent page')
    .option('--auto-login <USER>', 'skip login and consent: issue the code for USER at once (CI, load tests)')
    .option('--issuer-url <URL>', 'the issuer to announce (metadata, iss, --json) when clients reach the mock through a proxy or container name')
    .option('--admin', 'turn the admin API ({auth_url}/_mock/) on when listening beyond loopback: whoever reaches it can mint tokens')
    .option('--fapi2', 'the FAPI 2.0 Security Profile: PAR only, PKCE S256, DPoP or mTLS-bound tokens, private_key_jwt or mTLS clients (docs/fapi2.md)')
    .option('--access-token-format <FORMAT>', 'jwt (RFC 9068, the default) or opaque (random reference tokens, as Google and GitHub issue)')
    .option('--tls', 'HTTPS with a CA and a certificate made at start (needs openssl); --json adds "ca_file"')
    .option('--tls-cert <FILE>', 'HTTPS with your own certificate (PEM), with --tls-key')
    .option('--tls-key <FILE>', 'the private key (PEM) of --tls-cert')
    .option('--json', 'print one line {"issuer","auth_url","base_url"} once listening; log JSON lines to stderr');
  addCommonOptions(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl serve-mock --port 9000
  $ oauthctl serve-mock --port 0 --json --auto-login alice
  $ oauthctl serve-mock --config fixtures/mock/example.jsonc
  $ oauthctl serve-mock --access-token-format opaque
  $ oauthctl serve-mock --tls --port 0 --json
  $ oauthctl serve-mock --host 0.0.0.0 --port 9000 --issuer-url http://mock:9000

Out of the box: user alice / wonderland; confidential client photo-web (secret photo-web-secret);
public client photo-cli (PKCE required); confidential client photo-service (secret
photo-service-secret: client credentials and token exchange); redirect URIs http://127.0.0.1/callback,
http://localhost/callback and http://[::1]/callback on any port. Runs until SIGINT or SIGTERM, then lets requests in flight finish (up to 5 s).`,
    )
    .action(async (options: ServeMockOptions, command: Command) => {
      const controller = new AbortController();
      const onSignal = () => controller.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        setExitCode(command, await runServeMock(options, io, controller.signal));
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });
}
