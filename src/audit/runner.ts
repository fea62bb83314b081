import { CliError } from '../errors.js';
import type { AuditContext } from './context.js';
import { ProbeFailure, ProbeSkip } from './probe-errors.js';
import type { AuditReport, Probe, ProbeResult } from './types.js';

export interface RunAuditOptions {
  /** Called as each probe finishes (progress on stderr). */
  onResult?: (result: ProbeResult) => void;
}

/**
 * Runs the probes in order. A probe that throws fails with the message (ProbeSkip skips it); when the
 * plain flow does not complete, the probes that need codes are skipped rather than failed again.
 */
export async function runAudit(ctx: AuditContext, probes: readonly Probe[], options: RunAuditOptions = {}): Promise<AuditReport> {
  const results: ProbeResult[] = [];
  let flowBroken: string | undefined;
  for (const probe of probes) {
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
    const result: ProbeResult = { id: probe.id, title: probe.title, status, rfc: probe.rfc, detail };
    results.push(result);
    options.onResult?.(result);
  }
  return { probes: results, summary: summarize(results) };
}

export function summarize(results: readonly ProbeResult[]): AuditReport['summary'] {
  const summary = { pass: 0, fail: 0, warn: 0, skip: 0 };
  for (const r of results) summary[r.status]++;
  return summary;
}

function messageOf(err: unknown): string {
  if (err instanceof ProbeFailure || err instanceof ProbeSkip) return err.message;
  if (err instanceof CliError) return `${err.message}${err.hint ? ` (${err.hint})` : ''}`;
  return err instanceof Error ? `unexpected error: ${err.message}` : String(err);
}
