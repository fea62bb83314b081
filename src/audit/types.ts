import type { AuditContext } from './context.js';

export type ProbeStatus = 'pass' | 'fail' | 'warn' | 'skip';
export const PROBE_STATUSES: readonly ProbeStatus[] = ['pass', 'fail', 'warn', 'skip'];

/** What a probe saw. */
export interface ProbeOutcome {
  status: ProbeStatus;
  detail: string;
}

/** One security property of the authorization server, checked by one small module. */
export interface Probe {
  /** Stable identifier, for --json, JUnit and CI filters. */
  id: string;
  title: string;
  /** The RFC section the property comes from. */
  rfc: string;
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
}

export interface AuditReport {
  probes: ProbeResult[];
  summary: Record<ProbeStatus, number>;
}

export const pass = (detail: string): ProbeOutcome => ({ status: 'pass', detail });
export const fail = (detail: string): ProbeOutcome => ({ status: 'fail', detail });
export const warn = (detail: string): ProbeOutcome => ({ status: 'warn', detail });
export const skip = (detail: string): ProbeOutcome => ({ status: 'skip', detail });
