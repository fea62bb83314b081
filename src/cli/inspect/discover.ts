import type { Command } from 'commander';
import type { DiscoveryChain } from '../../client/resources/discovery-chain.js';
import { escapeLogValue } from '../../output/escape.js';
import type { IO } from '../../output/io.js';
import { printJson } from '../../output/render.js';
import { addCommonOptions, parseHttpUrl, setExitCode, type CommonOptions } from '../program/command.js';
import { addHttpTimeoutOption, type HttpTimeoutOption } from '../options/http-timeout.js';
import { createFlowRuntime } from '../options/flow-pipeline.js';

export interface DiscoverOptions extends CommonOptions, HttpTimeoutOption {
  json?: boolean;
  insecure?: boolean;
}

/** The discovery chain of a resource (RFC 9728, then RFC 8414) or an issuer; exit 1 when it breaks. */
export async function runDiscover(url: string, options: DiscoverOptions, io: IO): Promise<number> {
  const { http } = await createFlowRuntime(options, io);
  try {
    const { discoverChain } = await import('../../client/resources/discovery-chain.js');
    const chain = await discoverChain(http, url);
    if (options.json) printJson(io, chain);
    else io.stdout.write(describeChain(chain));
    return chain.ok ? 0 : 1;
  } finally {
    await http.close();
  }
}

/** Every value came from the network: one line each, control characters and newlines escaped. */
const v = (value: unknown): string => escapeLogValue(typeof value === 'string' ? value : (JSON.stringify(value) ?? ''));

/** The chain in words, step by step as `login` narrates a flow. */
export function describeChain(chain: DiscoveryChain): string {
  const lines: string[] = [];
  if (chain.resource) {
    const r = chain.resource;
    lines.push(`==> Protected resource ${v(r.resource)}`);
    for (const f of r.fetched) lines.push(`    ${f.method ?? 'GET'} ${v(f.url)} -> ${f.status === 'unreachable' ? 'unreachable' : `HTTP ${f.status}`}${f.note ? ` (${v(f.note)})` : ''}`);
    if (r.probe.scope !== undefined) lines.push(`    the 401 asks for scope: ${v(r.probe.scope)}`);
    if (r.metadata) {
      const m = r.metadata;
      lines.push(`    metadata from ${r.how === 'challenge' ? "the 401's resource_metadata" : 'the well-known URL'}: ${v(r.metadataUrl)}`);
      lines.push(`    resource: ${v(m.resource)}`);
      lines.push(`    authorization_servers: ${v((m.authorization_servers ?? []).join(' ') || '(none)')}`);
      if (m.scopes_supported) lines.push(`    scopes_supported: ${v(m.scopes_supported.join(' '))}`);
      if (m.bearer_methods_supported) lines.push(`    bearer_methods_supported: ${v(m.bearer_methods_supported.join(' '))}`);
      if (m.dpop_signing_alg_values_supported) lines.push(`    DPoP: ${v(m.dpop_signing_alg_values_supported.join(' '))}${m.dpop_bound_access_tokens_required === true ? ' (required)' : ''}`);
      if (typeof m.resource_name === 'string') lines.push(`    resource_name: ${v(m.resource_name)}`);
    }
  }
  for (const s of chain.servers) {
    lines.push(`==> Authorization server ${v(s.issuer)}`);
    if (!s.summary) {
      lines.push('    no usable metadata (see below)');
      continue;
    }
    lines.push(`    metadata: ${v(s.metadataUrl)} (${s.kind === 'oauth-authorization-server' ? 'RFC 8414' : 'OpenID Connect Discovery'})`);
    const m = s.summary;
    const pkce = m.code_challenge_methods_supported as string[] | undefined;
    lines.push(`    PKCE: ${pkce === undefined ? 'not announced' : pkce.includes('S256') ? `S256 (${v(pkce.join(' '))})` : `no S256 (${v(pkce.join(' ') || 'none')})`}`);
    lines.push(`    grant types: ${v((m.grant_types_supported as string[]).join(' '))}`);
    lines.push(`    client authentication: ${v((m.token_endpoint_auth_methods_supported as string[]).join(' '))}`);
    lines.push(`    registration: ${m.registration_endpoint !== undefined ? v(m.registration_endpoint) : 'no registration_endpoint'}`);
    lines.push(`    client ID metadata documents: ${m.client_id_metadata_document_supported === true ? 'supported' : 'not announced'}`);
    lines.push(`    DPoP: ${m.dpop_signing_alg_values_supported !== undefined ? v((m.dpop_signing_alg_values_supported as string[]).join(' ')) : 'not announced'}`);
    lines.push(
      `    PAR: ${m.pushed_authorization_request_endpoint !== undefined ? `${v(m.pushed_authorization_request_endpoint)}${m.require_pushed_authorization_requests === true ? ' (required)' : ''}` : 'no'}`,
    );
    if (m.scopes_supported !== undefined) lines.push(`    scopes_supported: ${v((m.scopes_supported as string[]).join(' '))}`);
  }
  lines.push(chain.findings.length === 0 ? '==> No inconsistency found' : `==> ${chain.findings.length} finding(s)`);
  for (const f of chain.findings) lines.push(`    ${f.level === 'error' ? '✗' : '!'} ${v(f.text)} (${f.rule})`);
  const warnings = chain.findings.filter((f) => f.level !== 'error').length;
  lines.push(!chain.ok ? 'the chain breaks' : warnings > 0 ? `the chain holds, with ${warnings} warning(s) to check (!)` : 'the chain holds');
  return `${lines.join('\n')}\n`;
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('discover')
    .description('Walk the discovery chain of a protected resource (RFC 9728, then RFC 8414) or of an issuer, and say every inconsistency found.')
    .argument('<URL>', 'a protected resource (an API, an MCP server) or an authorization server', parseHttpUrl('URL'))
    .option('--json', 'print the chain as one JSON document')
    .option('--insecure', 'do not verify TLS certificates (test servers only; prints a warning)');
  addCommonOptions(addHttpTimeoutOption(cmd))
    .addHelpText(
      'after',
      `
Exit 0 when the chain holds, 1 when it breaks (each finding names the section it breaks), 2 for bad input.

Examples:
  $ oauthctl discover http://127.0.0.1:9000/api
  $ oauthctl discover http://127.0.0.1:9000/api --json
  $ oauthctl discover http://127.0.0.1:9000`,
    )
    .action(async (url: string, options: DiscoverOptions, command: Command) => {
      setExitCode(command, await runDiscover(url, options, io));
    });
}
