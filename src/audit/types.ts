import type { AuditContext } from './context.js';

export type ProbeStatus = 'pass' | 'fail' | 'warn' | 'skip';
export const PROBE_STATUSES: readonly ProbeStatus[] = ['pass', 'fail', 'warn', 'skip'];

/** What a probe saw. */
export interface ProbeOutcome {
  status: ProbeStatus;
  detail: string;
}

/** The audit's categories: `--only` and `--skip` take these as well as probe ids. */
export const PROBE_CATEGORIES = [
  'authorization-endpoint',
  'token-endpoint',
  'pkce',
  'id-token',
  'jwt',
  'metadata',
  'tokens',
  'concurrency',
  'par',
  'dpop',
  'device',
  'ciba',
  'revocation',
  'introspection',
  'client-authentication',
  'protected-resource',
  'mcp',
  'tls',
  'sessions',
  'fapi2',
] as const;
export type ProbeCategory = (typeof PROBE_CATEGORIES)[number];

/**
 * One security property of the authorization server, checked by one small module in the folder of its
 * category (src/audit/probes/<category>/), which carries its catalog entry: category, threat, remedy.
 */
export interface AuditProbe {
  /** Stable identifier, for --json, JUnit and CI filters. */
  id: string;
  title: string;
  /** The RFC section the property comes from. */
  rfc: string;
  category: ProbeCategory;
  /** The threat it guards against: an RFC 9700 or RFC 6819 section (or the spec section it checks). */
  threat: string;
  /** One line: what the server's operator should change when the probe fails or warns. */
  remedy: string;
  /** Skip when the plain flow does not complete (the probe needs codes or tokens). */
  needsFlow?: boolean;
  run(ctx: AuditContext): Promise<ProbeOutcome>;
}

/** A probe's row in the report (the contract's JSON shape). */
export interface ProbeResult {
  id: string;
  title: string;
  status: ProbeStatus;
  rfc: string;
  detail: string;
  category: ProbeCategory;
  threat: string;
  remedy: string;
}

/** What a run left untested, and why (capability absent, no second client, no refresh token): a short run is no clean bill. */
export interface NotTested {
  what: string;
  why: string;
}

/** How many of the report's probes were about the protected resource, and how many about its authorization server. */
export interface ProbesAbout {
  resource: number;
  authorization_server: number;
}

export interface AuditReport {
  probes: ProbeResult[];
  summary: Record<ProbeStatus, number> & { not_tested: NotTested[]; about: ProbesAbout };
}

/** The categories whose probes are about the protected resource (and its metadata chain), not the authorization server. */
const RESOURCE_CATEGORIES: readonly ProbeCategory[] = ['protected-resource', 'mcp'];

/** What a probe is about: the resource being audited (`--protected-resource`) or the authorization server. */
export function aboutOf(probe: { category: ProbeCategory }): 'resource' | 'authorization_server' {
  return RESOURCE_CATEGORIES.includes(probe.category) ? 'resource' : 'authorization_server';
}

export const pass = (detail: string): ProbeOutcome => ({ status: 'pass', detail });
export const fail = (detail: string): ProbeOutcome => ({ status: 'fail', detail });
export const warn = (detail: string): ProbeOutcome => ({ status: 'warn', detail });
export const skip = (detail: string): ProbeOutcome => ({ status: 'skip', detail });
