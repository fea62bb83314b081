import type { Command } from 'commander';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { UsageError } from '../errors.js';
import {
  ACCESS_TOKEN_FORMATS,
  createMockServer,
  formatLogEntry,
  loadMockConfig,
  MockConfigError,
  OpensslMissingError,
  type AccessTokenFormat,
  type MockConfigInput,
  type MockServer,
  type MockTlsOption,
} from '../mock/index.js';
import { redact } from '../output/redact.js';
import { addCommonOptions, parseInteger, setExitCode } from './command.js';
import type { IO } from '../output/io.js';

export interface ServeMockOptions {
  host?: string;
  port?: number;
  config?: string;
  /** false with --no-consent. */
  consent?: boolean;
  autoLogin?: string;
  /** Overrides the configuration's access_token_format. */
  accessTokenFormat?: string;
  /** HTTPS with a certificate made at start, or --tls-cert/--tls-key. */
  tls?: boolean;
  tlsCert?: string;
  tlsKey?: string;
  json?: boolean;
  quiet?: boolean;
  showSecrets?: boolean;
}

const LOOPBACK = new Set(['127.0.0.1', '::1', 'localhost']);

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
  try {
    server = await createMockServer(input, {
      host: options.host ?? '127.0.0.1',
      port: options.port ?? 0,
      consent: options.consent !== false,
      ...(options.autoLogin !== undefined ? { autoLogin: options.autoLogin } : {}),
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
  const caDir = server.ca !== undefined ? await mkdtemp(join(tmpdir(), 'oauthctl-mock-ca-')) : undefined;
  const caFile = caDir !== undefined ? join(caDir, 'ca.pem') : undefined;
  if (caFile !== undefined) await writeFile(caFile, server.ca!, { mode: 0o644 });
  if (options.json) io.stdout.write(`${JSON.stringify({ issuer: server.issuer, auth_url: server.authUrl, base_url: server.baseUrl, ...(caFile !== undefined ? { ca_file: caFile } : {}) })}\n`);
  else io.stdout.write(describe(server, defaults, options, caFile));
  if (options.host !== undefined && !LOOPBACK.has(options.host)) {
    io.stderr.write(`warning: listening on ${options.host}, not only on loopback: anyone who reaches this address can use the mock\n`);
  }

  if (!stop.aborted) await new Promise<void>((resolve) => stop.addEventListener('abort', () => resolve(), { once: true }));
  await server.close();
  if (caDir !== undefined) await rm(caDir, { recursive: true, force: true });
  return 0;
}

/** --tls, --tls-cert and --tls-key: undefined for plain HTTP. */
async function tlsOption(options: ServeMockOptions): Promise<MockTlsOption | undefined> {
  if ((options.tlsCert === undefined) !== (options.tlsKey === undefined))
    throw new UsageError('--tls-cert and --tls-key go together', 'give both files (PEM), or --tls alone for a certificate made at start');
  if (options.tlsCert === undefined || options.tlsKey === undefined) return options.tls ? true : undefined;
  const read = async (flag: string, file: string) => {
    try {
      const text = await readFile(file, 'utf8');
      if (!text.includes('-----BEGIN')) throw new UsageError(`${flag} ${file} is not a PEM file`, 'give a PEM certificate and its PEM private key');
      return text;
    } catch (err) {
      if (err instanceof UsageError) throw err;
      throw new UsageError(`cannot read ${flag} ${file} (${(err as NodeJS.ErrnoException).code ?? 'error'})`, 'give a readable PEM file');
    }
  };
  return { cert: await read('--tls-cert', options.tlsCert), key: await read('--tls-key', options.tlsKey) };
}

function describe(server: MockServer, defaults: boolean, options: ServeMockOptions, caFile: string | undefined): string {
  const show = defaults || options.showSecrets === true;
  const secret = (s: string) => (show ? s : redact(s));
  const lines = [
    'oauthctl mock authorization server',
    `  issuer, auth_url   ${server.issuer}`,
    `  authorize          ${server.authUrl}/authorize`,
    `  token              ${server.authUrl}/token`,
    `  metadata           ${server.issuer}/.well-known/openid-configuration`,
    `  base_url (API)     ${server.baseUrl}   GET /photos (scope photo), GET /me`,
  ];
  for (const user of server.config.users.values()) lines.push(`  user               ${user.username} / ${secret(user.password)}`);
  for (const client of server.config.clients.values()) {
    const method = client.tokenEndpointAuthMethod;
    const kind = client.clientSecret !== undefined ? `secret ${secret(client.clientSecret)}, ${method}` : method === 'none' ? 'public, no secret' : method;
    const pkce = client.requirePkce ? ', PKCE required' : '';
    lines.push(`  client             ${client.clientId} (${kind}${pkce})`);
    lines.push(`                     redirect URIs: ${client.redirectUris.join(' ')}`);
  }
  if (defaults) lines.push('  loopback redirect URIs match on any port (RFC 8252 section 7.3)');
  if (caFile !== undefined) lines.push(`  TLS CA             ${caFile}   (NODE_EXTRA_CA_CERTS=${caFile} to trust it)`);
  if (server.config.accessTokenFormat === 'opaque') lines.push('  access tokens      opaque (checked by lookup: the API and /introspect)');
  if (options.autoLogin !== undefined) lines.push(`  auto-login         as ${options.autoLogin}: no login or consent page`);
  else if (options.consent === false) lines.push('  consent            off (--no-consent)');
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
    .option('--access-token-format <FORMAT>', 'jwt (RFC 9068, the default) or opaque (random reference tokens, as Google and GitHub issue)')
    .option('--tls', 'HTTPS with a CA and a certificate made at start (needs openssl); --json adds "ca_file"')
    .option('--tls-cert <FILE>', 'HTTPS with your own certificate (PEM), with --tls-key')
    .option('--tls-key <FILE>', 'the private key (PEM) of --tls-cert')
    .option('--json', 'print one line {"issuer","auth_url","base_url"} once listening; log JSON lines to stderr')
    .option('-q, --quiet', 'do not log requests');
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

Out of the box: user alice / wonderland; confidential client photo-web (secret photo-web-secret);
public client photo-cli (PKCE required); redirect URIs http://127.0.0.1/callback,
http://localhost/callback and http://[::1]/callback on any port. Runs until SIGINT or SIGTERM.`,
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
