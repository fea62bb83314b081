import { Option, type Command } from 'commander';
import { httpTimeoutMs } from '../options/http-timeout.js';
import { UsageError } from '../../errors.js';
import type { HttpClient } from '../../client/http/http.js';
import type { AuthorizationServerMetadata } from '../../oauth/discovery.js';
import type { ClientCredentials } from '../../oauth/token-request.js';
import type { Renderer, Style } from '../../output/render.js';
import { aboutOf, type AuditProbe, type ProbeStatus } from '../../audit/types.js';
import type { AuditPlan } from '../../audit/plan.js';
import type { ToolCall } from '../../audit/context.js';
import type { AuditView } from '../../audit/table.js';
import type { MetadataLookup } from '../../audit/metadata-lookup.js';
import type { FlowConfig } from '../../client/flows/flow-config.js';
import { addCommonOptions, collect, setExitCode, suggestSimilar, type CommonOptions } from '../program/command.js';
import { addFlowOptions, type FlowOptionsInput } from '../options/flow-options.js';
import { resolveFlowConfig } from '../options/flow-pipeline.js';
import { addBrowserDriverOptions, addCredentialOptions, PASSWORD_ENV, resolveHeadlessOptions, USERNAME_ENV } from '../options/headless-options.js';
import { colorEnabled, withIO, type IO } from '../../output/io.js';

export const SECOND_CLIENT_SECRET_ENV = 'OAUTHCTL_SECOND_CLIENT_SECRET';

export interface AuditOptions extends FlowOptionsInput, CommonOptions {
  username?: string;
  password?: string;
  browserDriver?: string;
  browserPath?: string;
  secondClientId?: string;
  secondClientSecret?: string;
  probe?: string[];
  only?: string[];
  skip?: string[];
  apiUrl?: string;
  json?: boolean;
  junit?: string;
  markdown?: string;
  sarif?: string;
  list?: boolean;
  /** --plan fapi2|mcp: a profile's requirements, each met only when all its probes pass. */
  plan?: string;
  /** With --protected-resource: the authorization server's own probes too. */
  withAuthorizationServer?: boolean;
  /** A real access token for the protected resource, where the audit cannot get one itself. */
  token?: string;
  /** The one tool of an MCP server the audit may call (mcp-tool-scope), and its arguments as JSON. */
  callTool?: string;
  toolArguments?: string;
}

/** Runs the probes against the server and prints the report; returns the exit code (1 when a probe failed). */
export async function runAuditCommand(options: AuditOptions, io: IO): Promise<number> {
  if (options.list) return listProbes(options, io);
  const account = auditAccount(options, io.env);
  const tool = toolCall(options);
  const [{ createRenderer, printJson }, { createHttpClient }, { readClientCertificate }, { AuditContext }, { runAudit }, { PROBES }] = await Promise.all([
    import('../../output/render.js'),
    import('../../client/http/http.js'),
    import('../../client/flows/keys.js'),
    import('../../audit/context.js'),
    import('../../audit/runner.js'),
    import('../../audit/probes/index.js'),
  ]);
  const apiUrl = checkApiUrl(options.apiUrl);
  const { all, plan } = await auditScope(PROBES, options.plan);
  const probes = auditedProbes(selectPlanProbes(all, plan, options), options);
  const driver = account.browserDriver === 'chromium' ? await import('../../agent/browser-driver.js') : undefined;
  if (driver) await driver.checkBrowserDriver(account.browserPath, io.env);
  const renderer = createRenderer(io, { verbose: options.verbose, color: options.color, showSecrets: options.showSecrets });
  // Mutual TLS (RFC 8705): the client certificate is part of every connection, as in the flows.
  const clientCertificate = await readClientCertificate(options.tlsCert, options.tlsKey);
  const http = createHttpClient({
    insecure: options.insecure,
    renderer,
    env: io.env,
    timeoutMs: httpTimeoutMs(options),
    clientCertificate,
    secrets: account.password !== undefined ? [account.password] : [],
  });
  let browser: Awaited<ReturnType<NonNullable<typeof driver>['createBrowserNavigator']>> | undefined;
  try {
    const config = await resolveFlowConfig(options, io, { http, renderer, needs: 'both', tolerateResourceFindings: true, reportsAlgorithms: true });
    const { issuer, metadata, lookup } = await findMetadata(http, config, renderer);
    if (driver) {
      renderer.trace('audit: authorization requests go through headless Chromium');
      browser = await driver.createBrowserNavigator({ browserPath: account.browserPath, env: io.env, har: renderer.har, warn: (line) => renderer.warn(line) });
    }
    const ctx = new AuditContext({
      config,
      http,
      credentials: account.username !== undefined && account.password !== undefined ? { username: account.username, password: account.password } : undefined,
      token: options.token,
      toolCall: tool,
      plan: options.plan,
      secondClient: secondClient(options, io.env),
      issuer,
      metadata,
      metadataLookup: lookup,
      apiUrl,
      trace: (line) => renderer.trace(line),
      showSecrets: options.showSecrets,
      navigate: browser ? (url, walkOptions) => browser!.navigate(url, walkOptions) : undefined,
    });
    renderer.step(auditHeading(config, probes));
    const view = await terminalView(options, io, probes);
    let next = 0;
    const startNext = () => {
      const probe = probes[next];
      if (probe) view.start?.(probe, next, probes.length);
    };
    startNext();
    const report = await runAudit(ctx, probes, {
      onStart: (probe) => renderer.har?.beginGroup({ id: probe.id, title: probe.title, category: probe.category }),
      onResult: (r) => {
        renderer.har?.endGroup(r.id, r.status, r.detail);
        next++;
        if (view.done) view.done(r);
        else if (!view.start) renderer.info(`${r.status.padEnd(4)} ${r.id}`, STATUS_STYLE[r.status]);
        startNext();
      },
    });
    view.clear?.();
    const suite = `oauthctl audit ${new URL(config.authorizationEndpoint).origin} ${config.clientId}`;
    if (options.junit !== undefined) await writeReport('--junit', options.junit, async () => (await import('../../audit/junit.js')).toJUnitXml(report, suite));
    if (options.markdown !== undefined) await writeReport('--markdown', options.markdown, async () => (await import('../../audit/markdown.js')).toMarkdown(report, suite));
    // SARIF is meant to be uploaded (GitHub code scanning), so it is written for its owner only.
    if (options.sarif !== undefined) await writeReport('--sarif', options.sarif, async () => (await import('../../audit/sarif.js')).toSarif(report, config.authorizationEndpoint), 0o600);
    const planModule = plan ? await import('../../audit/plan.js') : undefined;
    const verdict = plan && planModule ? planModule.judgePlan(plan, report.probes) : undefined;
    if (options.json) {
      printJson(io, { probes: report.probes, summary: { ...report.summary, ...(verdict ? { plan: verdict } : {}) } });
    } else if (view.finish) {
      view.finish(report);
    } else {
      const { formatAuditTable } = await import('../../audit/table.js');
      io.stdout.write(formatAuditTable(report, colorEnabled(withIO(io, { stderr: io.stdout }), options.color)));
    }
    if (!options.json && plan && planModule && verdict) io.stdout.write(planModule.formatPlan(plan, verdict));
    return report.summary.fail > 0 || verdict?.passed === false ? 1 : 0;
  } finally {
    await browser?.close();
    await http.close();
  }
}

/**
 * How the probes are shown as they run. stdout a terminal (and no --json): each verdict there as soon as
 * it is known, replacing a line that names the probe running, and the summary after; no table. stdout
 * piped: the table at the end, and on a terminal's stderr one progress line redrawn in place; with
 * neither a terminal, a plain line per probe on stderr (`view` empty).
 */
async function terminalView(options: AuditOptions, io: IO, probes: readonly { id: string }[]): Promise<Partial<AuditView> & { clear?: () => void }> {
  const live = io.env.TERM !== 'dumb';
  if (!options.json && io.stdout.isTTY === true) {
    const { createAuditView } = await import('../../audit/table.js');
    const color = colorEnabled(withIO(io, { stderr: io.stdout }), options.color);
    return createAuditView(io.stdout, { color, live, idWidth: Math.max(5, ...probes.map((p) => p.id.length)) });
  }
  if (io.stderr.isTTY === true && live) return (await import('../../audit/table.js')).createProgressLine(io.stderr);
  return {};
}

/** `audit --list [--json]`: the probes a run with the same options would run (every probe with --only fapi2 too), with category, threat and title; nothing is sent anywhere. */
async function listProbes(options: AuditOptions, io: IO): Promise<number> {
  const [{ PROBES }, { probeListing, formatProbeList }, { printJson }] = await Promise.all([import('../../audit/probes/index.js'), import('../../audit/list.js'), import('../../output/render.js')]);
  const { all, plan } = await auditScope(PROBES, options.plan);
  const probes = selectPlanProbes(all, plan, options);
  if (options.json) printJson(io, { probes: probeListing(probes) });
  else io.stdout.write(formatProbeList(probes));
  return 0;
}

const PLANS = ['fapi2', 'mcp'] as const;

/**
 * The account for the audit's logins. The built-in agent logs in only when a login form appears, so
 * neither is needed against a server that logs in by itself; one without the other is a usage error.
 * A real browser (--browser-driver) needs both at once, as `login --headless` does.
 */
function auditAccount(options: AuditOptions, env: NodeJS.ProcessEnv): { username?: string; password?: string; browserDriver?: 'chromium'; browserPath?: string } {
  const username = options.username ?? (env[USERNAME_ENV] || undefined);
  const password = options.password ?? (env[PASSWORD_ENV] || undefined);
  if (options.browserDriver !== undefined || (username === undefined) !== (password === undefined)) return resolveHeadlessOptions(options, env, 'audit');
  return { ...(username !== undefined && { username }), ...(password !== undefined && { password }) };
}

/**
 * An audit of a protected resource (--protected-resource) reports the resource's probes and its metadata
 * chain only, unless --with-authorization-server (or --only naming them) asks for the server's too; the
 * resource's probes come first. Without a resource, the resource's probes cannot run and are left out.
 */
function auditedProbes(selected: readonly AuditProbe[], options: AuditOptions): readonly AuditProbe[] {
  if (options.protectedResource === undefined) {
    if (options.plan === 'mcp') throw new UsageError('--plan mcp needs --protected-resource URL', "give the MCP server's URL, e.g. --protected-resource https://mcp.example.com/mcp");
    if (options.token !== undefined) throw new UsageError('--token needs --protected-resource URL', 'the token is presented to the resource being audited');
    if (options.withAuthorizationServer) throw new UsageError('--with-authorization-server needs --protected-resource URL', 'an audit without a resource is of the authorization server already');
    if (options.callTool !== undefined) throw new UsageError('--call-tool needs --protected-resource URL', 'the tool is called on the MCP server being audited');
    return selected.filter((p) => aboutOf(p) === 'authorization_server');
  }
  const named = (options.only ?? []).length + (options.probe ?? []).length > 0;
  const resource = selected.filter((p) => aboutOf(p) === 'resource');
  const server = selected.filter((p) => aboutOf(p) === 'authorization_server');
  return options.withAuthorizationServer || named ? [...resource, ...server] : resource;
}

/**
 * The tool the audit may call (--call-tool) with its arguments (--tool-arguments, a JSON object): checked
 * before anything is sent.
 */
function toolCall(options: AuditOptions): ToolCall | undefined {
  if (options.callTool === undefined) {
    if (options.toolArguments !== undefined) throw new UsageError('--tool-arguments needs --call-tool NAME', 'they are the arguments of the tool the audit calls');
    return undefined;
  }
  if (options.callTool.trim() === '') throw new UsageError('--call-tool needs the name of a tool', 'as tools/list names it, e.g. --call-tool whoami');
  let args: unknown = {};
  if (options.toolArguments !== undefined) {
    try {
      args = JSON.parse(options.toolArguments);
    } catch {
      args = undefined;
    }
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) throw new UsageError('--tool-arguments must be a JSON object', `as '{"text": "hi"}'`);
  return { name: options.callTool, arguments: args as Record<string, unknown> };
}

/** The first line on stderr: what is audited, and how many probes are about what. */
function auditHeading(config: FlowConfig, probes: readonly AuditProbe[]): string {
  const server = new URL(config.authorizationEndpoint).origin;
  if (config.protectedResource === undefined) return `Audit of ${server} with client ${config.clientId} (${probes.length} probes)`;
  const about = probes.filter((p) => aboutOf(p) === 'resource').length;
  return `Audit of the resource ${config.protectedResource} (${about} probes)${about < probes.length ? ` and of its authorization server ${server} (${probes.length - about} probes)` : `, authorization server ${server}`}, client ${config.clientId}`;
}

/**
 * The probes the audit may run: every probe, and the FAPI 2.0 ones (which run only with --plan fapi2
 * or when --only names them: ordinary servers are not held to the profile, and one of them waits 61 s).
 */
async function auditScope<T extends AuditProbe>(probes: readonly T[], planName: string | undefined): Promise<{ all: readonly AuditProbe[]; plan?: AuditPlan }> {
  if (planName !== undefined && !(PLANS as readonly string[]).includes(planName)) throw new UsageError(`unknown --plan ${JSON.stringify(planName)}`, `plans: ${PLANS.join(', ')}`);
  const [{ FAPI2_PROBES }, { FAPI2_PLAN }, { MCP_PLAN }] = await Promise.all([
    import('../../audit/probes/fapi2/index.js'),
    import('../../audit/probes/fapi2/plan.js'),
    import('../../audit/probes/mcp/plan.js'),
  ]);
  const plan = planName === 'fapi2' ? FAPI2_PLAN : planName === 'mcp' ? MCP_PLAN : undefined;
  return { all: [...probes, ...FAPI2_PROBES.filter((p) => !probes.some((q) => q.id === p.id))], ...(plan ? { plan } : {}) };
}

/** A plan's probes (then --skip), else --only and --skip; with neither, every probe but the FAPI 2.0 category's. */
function selectPlanProbes(all: readonly AuditProbe[], plan: AuditPlan | undefined, options: AuditOptions): readonly AuditProbe[] {
  const only = [...(options.only ?? []), ...(options.probe ?? [])];
  if (plan !== undefined && only.length === 0) {
    const ids = new Set(plan.requirements.flatMap((r) => r.probes));
    return selectProbes(all, [], options.skip ?? []).filter((p) => ids.has(p.id));
  }
  const chosen = selectProbes(all, only, options.skip ?? []);
  return only.length > 0 ? chosen : chosen.filter((p) => p.category !== 'fapi2');
}

/**
 * --only (and its older name --probe) and --skip: probe ids or categories, comma-separated or repeated.
 * A name that is both (`tls`, `metadata`) means the probe; `category:NAME` always means the category.
 * An unknown name is a usage error.
 */
export function selectProbes<T extends { id: string; category: string }>(all: readonly T[], only: readonly string[], skip: readonly string[]): readonly T[] {
  const names = (list: readonly string[]) =>
    list
      .flatMap((w) => w.split(','))
      .map((w) => w.trim())
      .filter(Boolean);
  const [wanted, unwanted] = [names(only), names(skip)];
  const categories = new Set(all.map((p) => p.category));
  const ids = new Set(all.map((p) => p.id));
  const categoryOf = (name: string) => (name.startsWith('category:') ? name.slice('category:'.length) : ids.has(name) ? undefined : name);
  const unknown = [...wanted, ...unwanted].filter((name) => !ids.has(name) && !categories.has(categoryOf(name) ?? ''));
  if (unknown.length > 0) {
    const known = [...ids, ...categories];
    const meant = [...new Set(unknown)].map((u) => suggestSimilar(u, known)).filter((n) => n !== undefined);
    const guess = meant.length > 0 ? `did you mean ${meant.map((n) => JSON.stringify(n)).join(', ')}? ` : '';
    throw new UsageError(
      `unknown probe or category ${[...new Set(unknown)].map((u) => JSON.stringify(u)).join(', ')}`,
      `${guess}categories: ${[...categories].join(', ')}; \`oauthctl audit --list\` lists the probes`,
    );
  }
  const named = (p: T, list: readonly string[]) => list.some((name) => (categoryOf(name) === undefined ? name === p.id : categoryOf(name) === p.category));
  return all.filter((p) => (wanted.length === 0 || named(p, wanted)) && !named(p, unwanted));
}

function checkApiUrl(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    const url = new URL(value);
    if (url.protocol === 'http:' || url.protocol === 'https:') return url.href;
  } catch {
    // reported below
  }
  throw new UsageError(`--api-url ${JSON.stringify(value)} is not an http(s) URL`, 'give the URL of a protected resource that accepts the access tokens, e.g. https://api.example.com/me');
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
 * The issuer and its metadata: --issuer's discovery when it ran, else looked up where the issuer would
 * be (--auth-url, else the authorization endpoint's origin). Every answer is kept for the metadata probe;
 * an assumed issuer is trusted only when the document names it.
 */
async function findMetadata(http: HttpClient, config: FlowConfig, renderer: Renderer): Promise<{ issuer?: string; metadata?: AuthorizationServerMetadata; lookup?: MetadataLookup }> {
  const { lookUpMetadata, assumedIssuer, sameIgnoringTrailingSlash } = await import('../../audit/metadata-lookup.js');
  const given = config.issuer !== undefined;
  const asked = config.issuer ?? assumedIssuer(config.authUrl, config.authorizationEndpoint);
  let lookup: MetadataLookup | undefined;
  try {
    lookup = await lookUpMetadata(http, asked, given);
    renderer.trace(lookup.found ? `audit: metadata found at ${lookup.found.url}` : `audit: no metadata for ${asked}`);
  } catch (err) {
    renderer.trace(`audit: no metadata for ${asked}: ${(err as Error).message}`);
  }
  if (config.metadata) return { issuer: config.metadata.issuer, metadata: config.metadata, lookup };
  const document = lookup?.found?.document;
  if (document && sameIgnoringTrailingSlash(document.issuer, asked)) return { issuer: String(document.issuer), metadata: document as AuthorizationServerMetadata, lookup };
  return { ...(given ? { issuer: asked } : {}), lookup };
}

async function writeReport(flag: string, file: string, render: () => Promise<string>, mode = 0o644): Promise<void> {
  const [text, { writeFileAtomic }] = await Promise.all([render(), import('../../store/atomic-file.js')]);
  try {
    await writeFileAtomic(file, text, { mode, dirMode: 0o755 });
  } catch (err) {
    throw new UsageError(`cannot write ${flag} ${JSON.stringify(file)}: ${(err as Error).message}`, 'give a path in a writable directory');
  }
}

const STATUS_STYLE: Readonly<Record<ProbeStatus, Style>> = { pass: 'green', fail: 'red', warn: 'yellow', skip: 'gray' };

export function register(program: Command, io: IO): void {
  const cmd = program.command('audit').description("Probe an authorization server's security properties (RFC 6749, RFC 7636, RFC 9207, RFC 9700) through headless logins: a smoke test for CI.");
  addFlowOptions(cmd);
  addCredentialOptions(cmd)
    .option('--second-client-id <ID>', 'another registered client, for the code-to-client binding probe')
    .option('--second-client-secret <S>', `its secret, if it is confidential (also ${SECOND_CLIENT_SECRET_ENV})`)
    .option('--with-authorization-server', "with --protected-resource: run the authorization server's own probes too (by default only the resource's and its metadata chain's)")
    .option('--token <T>', 'with --protected-resource: a real access token for the resource, for when the audit cannot log in itself (it still logs in for the tokens it needs besides)')
    .option(
      '--call-tool <NAME>',
      "with --protected-resource of an MCP server: a tool that needs more scope than the server's 401 asks for; mcp-tool-scope calls it once, with a token short of that scope, and expects 403 insufficient_scope (the audit calls no tool otherwise)",
    )
    .option('--tool-arguments <JSON>', "the arguments of --call-tool's tool, a JSON object (default {})")
    .option('--list', 'list every probe (id, category, threat, title) and exit; with --json as JSON')
    .addOption(new Option('--plan <NAME>', 'check a profile: each of its requirements (named by clause) met only when all its probes pass; exit 1 when one is not').choices(PLANS))
    .option('--only <ID>', 'run only these probes or categories (comma-separated or repeated)', collect)
    .option('--probe <ID>', 'the same as --only', collect)
    .option('--skip <ID>', 'leave these probes or categories out (comma-separated or repeated)', collect)
    .option(
      '--api-url <URL>',
      'a protected resource that accepts the access tokens: code-single-use checks there that revoked tokens stop working, dpop-bound-as-bearer presents a DPoP-bound token there',
    )
    .option(
      '--json',
      'print {"probes":[{"id","title","status","rfc","detail","category","threat","remedy"}],"summary":{"pass","fail","warn","skip","not_tested":[{"what","why"}],"about":{"resource","authorization_server"}}} (with --plan, summary.plan: {"name","passed","requirements"})',
    )
    .option('--junit <FILE>', 'also write the report as JUnit XML to FILE')
    .option('--markdown <FILE>', 'also write the report as a Markdown table to FILE (e.g. "$GITHUB_STEP_SUMMARY")')
    .option('--sarif <FILE>', 'also write the failures and warnings as SARIF 2.1.0 to FILE (mode 0600), for GitHub code scanning');
  addBrowserDriverOptions(cmd);
  addCommonOptions(cmd).addHelpText(
    'after',
    `
Exit status: 1 when any probe fails, or with --plan when a requirement is not met; 0 otherwise (warnings and skips do not fail, except in a plan).

Examples:
  $ oauthctl audit --list
  $ oauthctl audit --plan fapi2 --issuer http://127.0.0.1:9000 --client-id photo-web --client-secret photo-web-secret --scope openid --username alice --password wonderland --skip fapi2-code-lifetime   # exits 1: no FAPI 2.0 server (docs/fapi2.md)
  $ oauthctl audit --auth-url http://127.0.0.1:9000 --client-id photo-cli --scope photo --username alice --password wonderland --only pkce,token-endpoint --sarif audit.sarif
  $ oauthctl audit --auth-url http://127.0.0.1:9000 --client-id photo-cli --scope "photo offline_access" --username alice --password wonderland
  $ OAUTHCTL_PASSWORD="$PW" oauthctl audit --issuer http://127.0.0.1:9000 --client-id photo-web --client-secret "$SECRET" --scope photo --username alice --junit audit.xml
  $ oauthctl audit --auth-url http://127.0.0.1:9000 --client-id photo-cli --scope photo --username alice --password wonderland --second-client-id photo-web --second-client-secret photo-web-secret --json
  $ oauthctl audit --issuer http://127.0.0.1:9000 --client-id photo-cli --scope photo --username alice --password "$PW" --browser-driver chromium   # login pages that need JavaScript
  $ oauthctl audit --auth-url http://127.0.0.1:9000 --client-id photo-web --client-secret photo-web-secret --scope "openid photo" --username alice --password wonderland --skip tls,implicit-refused --markdown audit.md
  $ oauthctl audit --protected-resource http://127.0.0.1:9000/api --client-id photo-cli --username alice --password wonderland --only resource-401-metadata,resource-metadata-match,resource-query-token
  $ oauthctl audit --protected-resource http://127.0.0.1:9000/api/mcp --client-id photo-cli   # an MCP server: its probes only (docs/audit.md)
  $ oauthctl audit --protected-resource http://127.0.0.1:9000/api/mcp --client-id photo-cli --plan mcp   # passes; expiry and a tool's step-up "not verified": the mock's tokens live an hour, and no tool is named to call`,
  );
  cmd.action(async (options: AuditOptions, command: Command) => {
    setExitCode(command, await runAuditCommand(options, io));
  });
}
