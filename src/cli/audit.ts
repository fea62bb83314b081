import type { Command } from 'commander';
import { httpTimeoutMs } from './http-timeout.js';
import { UsageError } from '../errors.js';
import type { HttpClient } from '../client/http.js';
import type { AuthorizationServerMetadata } from '../oauth/discovery.js';
import type { ClientCredentials } from '../oauth/token-request.js';
import type { Renderer, Style } from '../output/render.js';
import type { AuditReport, ProbeStatus } from '../audit/types.js';
import type { FlowConfig } from '../client/flow-config.js';
import { addCommonOptions, collect, setExitCode, type CommonOptions } from './command.js';
import { addFlowOptions, type FlowOptionsInput } from './flow-options.js';
import { resolveFlowConfig } from './flow-pipeline.js';
import { addBrowserDriverOptions, addCredentialOptions, resolveHeadlessOptions } from './headless-options.js';
import { colorEnabled, type IO } from '../output/io.js';

export const SECOND_CLIENT_SECRET_ENV = 'OAUTHCTL_SECOND_CLIENT_SECRET';

export interface AuditOptions extends FlowOptionsInput, CommonOptions {
  username?: string;
  password?: string;
  browserDriver?: string;
  browserPath?: string;
  secondClientId?: string;
  secondClientSecret?: string;
  probe?: string[];
  json?: boolean;
  junit?: string;
}

/** Runs the probes against the server and prints the report; returns the exit code (1 when a probe failed). */
export async function runAuditCommand(options: AuditOptions, io: IO): Promise<number> {
  const account = resolveHeadlessOptions(options, io.env, 'audit');
  const [{ createRenderer, printJson }, { createHttpClient }, { scrubbingRenderer }, { AuditContext }, { runAudit }, { PROBES }] = await Promise.all([
    import('../output/render.js'),
    import('../client/http.js'),
    import('../agent/headless/agent.js'),
    import('../audit/context.js'),
    import('../audit/runner.js'),
    import('../audit/probes/index.js'),
  ]);
  const probes = selectProbes(PROBES, options.probe);
  const driver = account.browserDriver === 'chromium' ? await import('../agent/browser-driver.js') : undefined;
  if (driver) await driver.checkBrowserDriver(account.browserPath, io.env);
  const renderer = createRenderer(io, { verbose: options.verbose, color: options.color, showSecrets: options.showSecrets });
  const quiet = scrubbingRenderer(renderer, [account.password]);
  const http = createHttpClient({ insecure: options.insecure, renderer: quiet, env: io.env, timeoutMs: httpTimeoutMs(options) });
  let browser: Awaited<ReturnType<NonNullable<typeof driver>['createBrowserNavigator']>> | undefined;
  try {
    const config = await resolveFlowConfig(options, io, { http, renderer, needs: 'both' });
    const { issuer, metadata } = await findMetadata(http, config, renderer);
    if (driver) {
      renderer.trace('audit: authorization requests go through headless Chromium');
      browser = await driver.createBrowserNavigator({ browserPath: account.browserPath, env: io.env });
    }
    const ctx = new AuditContext({
      config,
      http,
      credentials: { username: account.username, password: account.password },
      secondClient: secondClient(options, io.env),
      issuer,
      metadata,
      trace: (line) => quiet.trace(line),
      showSecrets: options.showSecrets,
      navigate: browser ? (url, walkOptions) => browser!.navigate(url, walkOptions) : undefined,
    });
    renderer.step(`Audit of ${new URL(config.authorizationEndpoint).origin} with client ${config.clientId} (${probes.length} probes)`);
    const report = await runAudit(ctx, probes, {
      onResult: (r) => renderer.info(`${r.status.padEnd(4)} ${r.id}`, STATUS_STYLE[r.status]),
    });
    if (options.junit !== undefined) await writeJUnit(options.junit, report, config);
    if (options.json) {
      printJson(io, { probes: report.probes, summary: report.summary });
    } else {
      const { formatAuditTable } = await import('../audit/table.js');
      io.stdout.write(formatAuditTable(report, colorEnabled({ ...io, stderr: io.stdout }, options.color)));
    }
    return report.summary.fail > 0 ? 1 : 0;
  } finally {
    await browser?.close();
    await http.close();
  }
}

function selectProbes<T extends { id: string }>(all: readonly T[], wanted: readonly string[] | undefined): readonly T[] {
  if (!wanted || wanted.length === 0) return all;
  const ids = wanted
    .flatMap((w) => w.split(','))
    .map((w) => w.trim())
    .filter(Boolean);
  const unknown = ids.filter((id) => !all.some((p) => p.id === id));
  if (unknown.length > 0) throw new UsageError(`unknown probe ${unknown.map((u) => JSON.stringify(u)).join(', ')}`, `probes: ${all.map((p) => p.id).join(', ')}`);
  return all.filter((p) => ids.includes(p.id));
}

function secondClient(options: AuditOptions, env: NodeJS.ProcessEnv): ClientCredentials | undefined {
  const secret = options.secondClientSecret ?? (env[SECOND_CLIENT_SECRET_ENV] || undefined);
  if (options.secondClientId === undefined) {
    if (options.secondClientSecret !== undefined) throw new UsageError('--second-client-secret needs --second-client-id');
    return undefined;
  }
  return secret !== undefined ? { clientId: options.secondClientId, clientSecret: secret, authMethod: 'client_secret_basic' } : { clientId: options.secondClientId, authMethod: 'none' };
}

/**
 * The issuer and its metadata, for the iss and PKCE probes: from --issuer discovery when it ran, else
 * looked up quietly at the authorization server itself (the issuer is the endpoint's base URL there).
 */
async function findMetadata(http: HttpClient, config: FlowConfig, renderer: Renderer): Promise<{ issuer?: string; metadata?: AuthorizationServerMetadata }> {
  if (config.metadata) return { issuer: config.metadata.issuer, metadata: config.metadata };
  const { discoverMetadata } = await import('../client/endpoints.js');
  const endpoint = new URL(config.authorizationEndpoint);
  const candidates = config.issuer !== undefined ? [config.issuer] : [`${endpoint.origin}${endpoint.pathname.replace(/\/[^/]*$/, '')}`];
  for (const candidate of candidates) {
    try {
      const found = await discoverMetadata(http, candidate);
      renderer.trace(`audit: metadata found at ${found.url}`);
      return { issuer: found.metadata.issuer, metadata: found.metadata };
    } catch {
      renderer.trace(`audit: no metadata for ${candidate}`);
    }
  }
  return config.issuer !== undefined ? { issuer: config.issuer } : {};
}

async function writeJUnit(file: string, report: AuditReport, config: FlowConfig): Promise<void> {
  const [{ toJUnitXml }, { writeFileAtomic }] = await Promise.all([import('../audit/junit.js'), import('../store/atomic-file.js')]);
  const suite = `oauthctl audit ${new URL(config.authorizationEndpoint).origin} ${config.clientId}`;
  try {
    await writeFileAtomic(file, toJUnitXml(report, suite), { mode: 0o644, dirMode: 0o755 });
  } catch (err) {
    throw new UsageError(`cannot write --junit ${JSON.stringify(file)}: ${(err as Error).message}`, 'give a path in a writable directory');
  }
}

const STATUS_STYLE: Readonly<Record<ProbeStatus, Style>> = { pass: 'green', fail: 'red', warn: 'yellow', skip: 'gray' };

export function register(program: Command, io: IO): void {
  const cmd = program.command('audit').description("Probe an authorization server's security properties (RFC 6749, RFC 7636, RFC 9207, RFC 9700) through headless logins: a smoke test for CI.");
  addFlowOptions(cmd);
  addCredentialOptions(cmd)
    .option('--second-client-id <ID>', 'another registered client, for the code-to-client binding probe')
    .option('--second-client-secret <S>', `its secret, if it is confidential (also ${SECOND_CLIENT_SECRET_ENV})`)
    .option('--probe <ID>', 'run only these probes (comma-separated or repeated)', collect)
    .option('--json', 'print {"probes":[{"id","title","status","rfc","detail"}],"summary":{"pass","fail","warn","skip"}}')
    .option('--junit <FILE>', 'also write the report as JUnit XML to FILE');
  addBrowserDriverOptions(cmd);
  addCommonOptions(cmd).addHelpText(
    'after',
    `
Exit status: 1 when any probe fails, 0 otherwise (warnings and skips do not fail).

Examples:
  $ oauthctl audit --auth-url http://127.0.0.1:9000 --client-id photo-cli --scope "photo offline_access" --username alice --password wonderland
  $ OAUTHCTL_PASSWORD=... oauthctl audit --issuer https://id.staging.example.com --client-id ci-web --client-secret "$SECRET" --username ci-bot --junit audit.xml
  $ oauthctl audit --auth-url http://127.0.0.1:9000 --client-id photo-cli --username alice --password wonderland --second-client-id photo-web --second-client-secret photo-web-secret --json
  $ oauthctl audit --issuer https://login.example.com --client-id ci-spa --username ci-bot --browser-driver chromium   # login pages that need JavaScript`,
  );
  cmd.action(async (options: AuditOptions, command: Command) => {
    setExitCode(command, await runAuditCommand(options, io));
  });
}
