import type { Command } from 'commander';
import { addHttpTimeoutOption, httpTimeoutMs, type HttpTimeoutOption } from '../options/http-timeout.js';
import { escapeTerminal } from '../../output/escape.js';
import kleur from 'kleur';
import { FlowError, UsageError } from '../../errors.js';
import { decodeJwtUnverified, TIME_CLAIMS } from '../../oauth/jwt.js';
import { DEFAULT_CLOCK_TOLERANCE_SECONDS, describeTimeClaim, type JwtCheck } from '../../oauth/jwt-claims.js';
import { createRenderer, printJson } from '../../output/render.js';
import { addCommonOptions, parseHttpUrl, parseInteger, setExitCode, type CommonOptions } from '../program/command.js';
import { colorEnabled, type IO } from '../../output/io.js';

export interface DecodeOptions extends CommonOptions, HttpTimeoutOption {
  verify?: boolean;
  jwksUrl?: string;
  issuer?: string;
  audience?: string;
  nonce?: string;
  json?: boolean;
  insecure?: boolean;
  /** Allowed clock difference for exp, nbf and iat; default DEFAULT_CLOCK_TOLERANCE_SECONDS. */
  clockTolerance?: number;
}

export interface TimeClaim {
  value: number;
  date: string;
  relative: string;
}

export interface DecodeResult {
  header: Record<string, unknown>;
  claims: Record<string, unknown>;
  times: Record<string, TimeClaim>;
  verification?: {
    ok: boolean;
    jwks_uri: string;
    /** Where the keys came from: --jwks-url, --issuer's metadata, or the metadata of the token's own iss. */
    keys_from: 'jwks-url' | 'issuer' | 'iss-claim';
    /** Seconds of clock difference allowed for exp, nbf and iat. */
    clock_tolerance: number;
    checks: JwtCheck[];
  };
}

/** Reads TOKEN, or stdin for `-`; tolerates surrounding space and an `Authorization: Bearer` prefix. */
export async function readTokenArgument(token: string, io: IO): Promise<string> {
  let text = token;
  if (token === '-') {
    if (io.stdin.isTTY) throw new UsageError('TOKEN is - but stdin is a terminal', 'pipe the token in: echo "$TOKEN" | oauthctl decode -');
    const chunks: Buffer[] = [];
    for await (const chunk of io.stdin) chunks.push(Buffer.from(chunk as Buffer));
    text = Buffer.concat(chunks).toString('utf8');
  }
  return text.trim().replace(/^(authorization:\s*)?bearer\s+/i, '');
}

/** Header, claims and their times; exit 2 when the token is not a JWT. */
export function decodeToken(token: string, nowMs: number): DecodeResult {
  const parts = token.split('.');
  if (parts.length === 5) {
    throw new UsageError('this is an encrypted JWT (JWE, five parts): only the holder of the decryption key can read it', 'decode the ID token or a signed access token instead');
  }
  const decoded = parts.length === 3 ? decodeJwtUnverified(token) : undefined;
  if (!decoded) {
    const why = parts.length === 3 ? 'its header or claims are not base64url-encoded JSON' : `it has ${parts.length} dot-separated part${parts.length === 1 ? '' : 's'}, a JWT has 3`;
    throw new UsageError(`not a JWT: ${why}`, 'an opaque token can only be inspected by its server (token introspection, RFC 7662)');
  }
  const claims = decoded.claims as Record<string, unknown>;
  const times: Record<string, TimeClaim> = {};
  for (const [name, value] of Object.entries(claims)) {
    if (!TIME_CLAIMS.has(name) || typeof value !== 'number') continue;
    const date = new Date(value * 1000);
    if (Number.isNaN(date.getTime())) continue;
    times[name] = { value, date: date.toISOString(), relative: describeTimeClaim(name, value, nowMs) };
  }
  return { header: decoded.header as Record<string, unknown>, claims, times };
}

/**
 * Verifies with the issuer's keys: `--jwks-url`, or the jwks_uri of the issuer's metadata
 * (`--issuer`, else the token's own iss claim). The network parts load only with --verify.
 */
async function verifyDecoded(token: string, result: DecodeResult, options: DecodeOptions, io: IO, nowMs: number): Promise<void> {
  const [{ createHttpClient }, { discoverMetadata }, { fetchJwks, verifyJwt }] = await Promise.all([
    import('../../client/http/http.js'),
    import('../../client/flows/endpoints.js'),
    import('../../client/responses/jwt-verify.js'),
  ]);
  const renderer = createRenderer(io, options);
  const http = createHttpClient({ renderer, env: io.env, insecure: options.insecure, timeoutMs: httpTimeoutMs(options) });
  const clockTolerance = options.clockTolerance ?? DEFAULT_CLOCK_TOLERANCE_SECONDS;
  try {
    const claimedIssuer = typeof result.claims.iss === 'string' ? result.claims.iss : undefined;
    let jwksUri = options.jwksUrl;
    if (jwksUri === undefined) {
      const issuer = options.issuer ?? claimedIssuer;
      if (issuer === undefined) throw new UsageError('the token has no iss claim, so its keys cannot be found', 'give --jwks-url URL or --issuer URL');
      const { metadata, url } = await discoverMetadata(http, issuer);
      if (!metadata.jwks_uri) throw new FlowError(`the metadata at ${url} has no jwks_uri`, 'give --jwks-url');
      jwksUri = metadata.jwks_uri;
    }
    const jwks = await fetchJwks(http, jwksUri);
    const verification = await verifyJwt(token, jwks, {
      jwksUri,
      // Without --issuer, iss is compared with the issuer whose keys were used (found from iss itself).
      issuer: options.issuer ?? (options.jwksUrl === undefined ? claimedIssuer : undefined),
      audience: options.audience,
      nonce: options.nonce,
      nowMs,
      clockToleranceSeconds: clockTolerance,
    });
    const keysFrom = options.jwksUrl !== undefined ? 'jwks-url' : options.issuer !== undefined ? 'issuer' : 'iss-claim';
    result.verification = { ok: verification.ok, jwks_uri: jwksUri, keys_from: keysFrom, clock_tolerance: clockTolerance, checks: verification.checks };
  } finally {
    await http.close();
  }
}

export async function runDecode(tokenArg: string, options: DecodeOptions, io: IO, nowMs: number = Date.now()): Promise<number> {
  const token = await readTokenArgument(tokenArg, io);
  if (token === '') throw new UsageError('TOKEN is empty', 'pass a JWT, or - to read one from stdin');
  const result = decodeToken(token, nowMs);
  if (options.verify) await verifyDecoded(token, result, options, io, nowMs);
  if (options.json) printJson(io, result);
  else renderDecode(result, io, options);
  return result.verification && !result.verification.ok ? 1 : 0;
}

function renderDecode(result: DecodeResult, io: IO, options: DecodeOptions): void {
  // The result goes to stdout: colour only when stdout itself is a terminal.
  const paint = kleur;
  paint.enabled = colorEnabled(io, options.color) && io.stdout.isTTY === true;
  const out: string[] = [paint.bold('Header')];
  for (const [name, value] of Object.entries(result.header)) out.push(`  ${escapeTerminal(name)}: ${display(value)}`);
  out.push(paint.bold('Claims'));
  for (const [name, value] of Object.entries(result.claims)) {
    const time = result.times[name];
    out.push(time ? `  ${escapeTerminal(name)}: ${display(value)} = ${time.date.replace('T', ' ').replace(/\.\d+Z$/, ' UTC')} (${time.relative})` : `  ${escapeTerminal(name)}: ${display(value)}`);
  }
  const v = result.verification;
  if (!v) {
    out.push(paint.gray("Signature not verified (add --verify to check it against the issuer's keys)"));
  } else {
    out.push(paint.bold(`Verification: ${v.ok ? paint.green('valid') : paint.red('INVALID')}`));
    for (const check of v.checks) {
      const mark = check.status === 'pass' ? paint.green('✓') : check.status === 'fail' ? paint.red('✗') : paint.gray('-');
      out.push(`  ${mark} ${check.name}: ${escapeTerminal(check.detail)}`);
    }
    out.push(paint.gray(`  exp, nbf and iat checked with ${v.clock_tolerance} s of clock tolerance (--clock-tolerance SECONDS to change)`));
    if (v.keys_from === 'iss-claim') out.push(paint.yellow("  note: the keys were found from the token's own iss claim; pin the issuer you trust with --issuer"));
  }
  io.stdout.write(`${out.join('\n')}\n`);
}

/** A claim as text, escaped: claims come from whoever made the token (section A of the README). */
function display(value: unknown): string {
  return escapeTerminal(typeof value === 'string' ? value : JSON.stringify(value));
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('decode')
    .description("Show a JWT's header and claims with times in human form; --verify checks its signature and standard claims.")
    .argument('<TOKEN>', 'the JWT, or - to read it from stdin')
    .option('--verify', "check the signature against the issuer's JWKS and the claims exp, nbf, iat, iss (and aud, nonce when given)")
    .option('--jwks-url <URL>', "verify with the keys at this URL instead of the issuer's jwks_uri", parseHttpUrl('--jwks-url'))
    .option('--issuer <URL>', 'the issuer you trust: iss must equal it, and its metadata gives the keys', parseHttpUrl('--issuer'))
    .option('--audience <AUD>', 'aud must hold this value (with --verify)')
    .option('--nonce <NONCE>', "an ID token's nonce must equal this value (with --verify)")
    .option('--clock-tolerance <SECONDS>', `clock difference allowed for exp, nbf and iat (with --verify; default ${DEFAULT_CLOCK_TOLERANCE_SECONDS})`, parseInteger('--clock-tolerance', 0, 86_400))
    .option('--insecure', 'do not verify TLS certificates when fetching keys (test servers only)')
    .option('--json', 'print {"header","claims","times"} (and "verification" with --verify)');
  addCommonOptions(addHttpTimeoutOption(cmd))
    .addHelpText(
      'after',
      `
Exit codes: 0 decoded (and verified), 1 verification failed, 2 not a JWT.

Examples:
  $ oauthctl decode "$ACCESS_TOKEN"
  $ oauthctl token --profile work | oauthctl decode - --verify --audience http://127.0.0.1:9000/api
  $ oauthctl decode "$ID_TOKEN" --verify --issuer http://127.0.0.1:9000 --clock-tolerance 120 --json`,
    )
    .action(async (token: string, options: DecodeOptions, command: Command) => {
      setExitCode(command, await runDecode(token, options, io));
    });
}
