import { CliError } from '../errors.js';
import type { AuditContext } from './context.js';
import { ProbeFailure, ProbeSkip } from './probe-errors.js';
import { aboutOf, type AuditProbe, type AuditReport, type NotTested, type ProbeResult } from './types.js';

export interface RunAuditOptions {
  /** Called as each probe starts (the --ui page groups its exchanges under it). */
  onStart?: (probe: AuditProbe) => void;
  /** Called as each probe finishes (progress on stderr). */
  onResult?: (result: ProbeResult) => void;
}

/**
 * Runs the probes in order. A probe that throws fails with the message (ProbeSkip skips it); when the
 * plain flow does not complete, the probes that need codes are skipped rather than failed again.
 */
export async function runAudit(ctx: AuditContext, probes: readonly AuditProbe[], options: RunAuditOptions = {}): Promise<AuditReport> {
  const results: ProbeResult[] = [];
  let flowBroken: string | undefined;
  for (const probe of probes) {
    options.onStart?.(probe);
    let status: ProbeResult['status'];
    let detail: string;
    if (probe.needsFlow && flowBroken !== undefined) {
      status = 'skip';
      detail = `needs a working flow (${flowBroken})`;
    } else {
      try {
        ({ status, detail } = await probe.run(ctx));
      } catch (err) {
        status = err instanceof ProbeSkip ? 'skip' : 'fail';
        detail = messageOf(err);
      }
    }
    if (probe.id === 'flow' && status !== 'pass') flowBroken = 'the flow probe failed';
    const result: ProbeResult = { id: probe.id, title: probe.title, status, rfc: probe.rfc, detail, category: probe.category, threat: probe.threat, remedy: probe.remedy };
    results.push(result);
    options.onResult?.(result);
  }
  return { probes: results, summary: summarize(results) };
}

export function summarize(results: readonly ProbeResult[]): AuditReport['summary'] {
  const summary = { pass: 0, fail: 0, warn: 0, skip: 0 };
  const about = { resource: 0, authorization_server: 0 };
  for (const r of results) {
    summary[r.status]++;
    about[aboutOf(r)]++;
  }
  return { ...summary, not_tested: notTested(results), about };
}

/**
 * What the skipped probes left untested, one entry per reason: the probes that share it (a capability
 * the server does not announce, no second client, no refresh token) are named together.
 */
export function notTested(results: readonly ProbeResult[]): NotTested[] {
  const byReason = new Map<string, string[]>();
  for (const r of results) {
    if (r.status !== 'skip') continue;
    // The list's heading says "not tested" already: a detail that starts with it is not said twice.
    const why = r.detail.replace(/^not tested: /, '');
    const ids = byReason.get(why);
    if (ids) ids.push(r.id);
    else byReason.set(why, [r.id]);
  }
  return [...byReason].map(([why, ids]) => ({ what: ids.join(', '), why }));
}

function messageOf(err: unknown): string {
  if (err instanceof ProbeFailure || err instanceof ProbeSkip) return err.message;
  if (err instanceof CliError) return `${err.message}${err.hint ? ` (${err.hint})` : ''}`;
  return err instanceof Error ? `unexpected error: ${err.message}` : String(err);
}
