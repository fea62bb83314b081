import { FlowError, UsageError } from '../../errors.js';
import { escapeTerminal } from '../../output/escape.js';
import type { IO } from '../../output/io.js';
import { createRenderer, printJson } from '../../output/render.js';
import { httpTimeoutMs } from '../options/http-timeout.js';
import type { CommonOptions } from '../program/command.js';

/** The options of `listen` that --backchannel reads. */
export interface BackchannelListenOptions extends CommonOptions {
  port?: number;
  path?: string;
  timeout?: number;
  json?: boolean;
  issuer?: string;
  clientId?: string;
  httpTimeout?: number;
}

export const DEFAULT_BACKCHANNEL_PATH = '/backchannel-logout';

/**
 * `listen --backchannel`: a loopback back-channel logout endpoint (Back-Channel Logout 1.0 section 2.5)
 * that receives one logout token, validates it by section 2.6 with the keys of --issuer, answers the
 * server 200 or 400, and prints what the token says. Exit 0 when it holds, 1 when it does not.
 */
export async function runBackchannelListen(options: BackchannelListenOptions, io: IO): Promise<number> {
  if (options.issuer === undefined) throw new UsageError('--backchannel needs --issuer: the logout token is checked with its keys and must name it', 'add --issuer URL');
  const path = options.path ?? DEFAULT_BACKCHANNEL_PATH;
  if (!path.startsWith('/')) throw new UsageError(`--path must start with /, got ${JSON.stringify(path)}`);
  const renderer = createRenderer(io, options);
  const [{ createHttpClient }, { discoverMetadata }, { fetchJwks }, { startBackchannelListener, validateLogoutToken }] = await Promise.all([
    import('../../client/http/http.js'),
    import('../../client/flows/endpoints.js'),
    import('../../client/responses/jwt-verify.js'),
    import('../../client/listeners/backchannel-logout.js'),
  ]);
  const http = createHttpClient({ renderer, env: io.env, timeoutMs: httpTimeoutMs(options) });
  const issuer = options.issuer;
  const listener = await startBackchannelListener({
    port: options.port ?? 0,
    path,
    // Keys are read when the token arrives: a rotation meanwhile is seen.
    validate: async (token) => {
      const { metadata } = await discoverMetadata(http, issuer);
      if (typeof metadata.jwks_uri !== 'string') throw new FlowError(`${issuer} announces no jwks_uri to check the logout token with`);
      const jwks = await fetchJwks(http, metadata.jwks_uri);
      return validateLogoutToken(token, { jwks, jwksUri: metadata.jwks_uri, issuer, clientId: options.clientId, nowMs: Date.now() });
    },
  });
  const seconds = options.timeout ?? 300;
  const controller = new AbortController();
  const timer = setTimeout(
    () => controller.abort(new FlowError(`no logout token arrived at ${listener.url} within ${seconds} s`, "raise --timeout, and check the client's backchannel_logout_uri")),
    seconds * 1000,
  );
  try {
    renderer.step(`Listening for back-channel logout on ${listener.url}`);
    renderer.info("Register it as the client's backchannel_logout_uri; the first logout token is checked and shown here.");
    if (options.clientId === undefined) renderer.warn('without --client-id the audience (aud) is not checked');
    const report = await listener.waitForLogoutToken(controller.signal);
    if (options.json) printJson(io, report);
    else {
      const lines = [`Logout token ${report.valid ? 'valid' : 'NOT valid'} (Back-Channel Logout 1.0 section 2.6)`];
      for (const [name, value] of Object.entries(report.claims)) lines.push(`  ${name} = ${JSON.stringify(value)}`);
      for (const problem of report.problems) lines.push(`  problem: ${problem}`);
      if (report.valid) lines.push(`Outcome: log out ${report.claims.sid !== undefined ? `session ${String(report.claims.sid)}` : `every session of ${String(report.claims.sub)}`}.`);
      io.stdout.write(escapeTerminal(lines.join('\n')) + '\n');
    }
    return report.valid ? 0 : 1;
  } finally {
    clearTimeout(timer);
    await listener.close();
    await http.close();
  }
}
