import { run } from '../../../src/cli/program/main.js';
import type { AuditReport, ProbeStatus } from '../../../src/audit/types.js';
import { memoryIO } from '../../agent/helpers/io.js';

export const ACCOUNT = ['--username', 'alice', '--password', 'wonderland'];

/** Runs the audit (in process) against `url` and returns the JSON report, each probe's status and detail by id. */
export async function auditJson(url: string, ...args: string[]): Promise<{ code: number; report: AuditReport; byId: Record<string, { status: ProbeStatus; detail: string }> }> {
  const io = memoryIO();
  const code = await run(['audit', '--auth-url', url, ...ACCOUNT, '--json', ...args], io);
  const out = io.out();
  if (!out.startsWith('{')) throw new Error(`audit printed no JSON (exit ${code}): ${io.err()}`);
  const report = JSON.parse(out) as AuditReport;
  return { code, report, byId: Object.fromEntries(report.probes.map((p) => [p.id, { status: p.status, detail: p.detail }])) };
}

/** id -> status, for a compact expectation. */
export const statusesOf = (report: AuditReport) => Object.fromEntries(report.probes.map((p) => [p.id, p.status]));
