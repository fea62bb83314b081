import { escapeTerminal } from '../output/escape.js';
import type { ProbeResult } from './types.js';

/** One requirement of a profile: its clause, and the probes that must all pass for it to be met. */
export interface PlanRequirement {
  clause: string;
  text: string;
  probes: readonly string[];
  /** Applies only where the server announces the feature: its probes all skipping means "not applicable". */
  whereAnnounced?: boolean;
}

/** A profile checked by the audit (`audit --plan NAME`): it passes only when every requirement does. */
export interface AuditPlan {
  name: string;
  title: string;
  requirements: readonly PlanRequirement[];
  /**
   * What a requirement is whose probes could not test it, for a reason they state (all skipped or
   * passed, none failed or warned): 'not met' (the default: a certification profile passes only what
   * it saw), or 'not verified', which leaves the verdict to what was verified and says what was not.
   */
  untested?: 'not met' | 'not verified';
}

export type RequirementStatus = 'met' | 'not met' | 'not verified' | 'not applicable';

export interface RequirementVerdict {
  clause: string;
  text: string;
  status: RequirementStatus;
  /** The probes that did not pass (failed, warned, skipped or not run), with their detail. */
  missing: string[];
}

/** The JSON summary's `plan`. */
export interface PlanVerdict {
  name: string;
  passed: boolean;
  requirements: RequirementVerdict[];
}

/** Every probe id a plan needs. */
export function planProbeIds(plan: AuditPlan): Set<string> {
  return new Set(plan.requirements.flatMap((r) => r.probes));
}

/**
 * Each requirement is met when all its probes passed; a failure, a warning or a probe not run leaves it
 * unmet; a skip too (an untested requirement is no pass), unless the plan makes it "not verified"; an
 * optional feature nobody announced is not applicable.
 */
export function judgePlan(plan: AuditPlan, results: readonly ProbeResult[]): PlanVerdict {
  const byId = new Map(results.map((r) => [r.id, r]));
  const requirements = plan.requirements.map((req): RequirementVerdict => {
    const rows = req.probes.map((id) => byId.get(id));
    if (req.whereAnnounced && rows.every((r) => r?.status === 'skip')) return { clause: req.clause, text: req.text, status: 'not applicable', missing: [] };
    const missing = req.probes.flatMap((id, i) => {
      const r = rows[i];
      if (r === undefined) return [`${id}: not run`];
      return r.status === 'pass' ? [] : [`${id}: ${r.status} (${r.detail})`];
    });
    const untested = missing.length > 0 && rows.every((r) => r?.status === 'pass' || r?.status === 'skip');
    const status: RequirementStatus = missing.length === 0 ? 'met' : untested ? (plan.untested ?? 'not met') : 'not met';
    return { clause: req.clause, text: req.text, status, missing };
  });
  // Nothing verified is no pass, however many requirements could not be tested.
  const passed = requirements.every((r) => r.status !== 'not met') && requirements.some((r) => r.status === 'met');
  return { name: plan.name, passed, requirements };
}

/** The plan's verdict as text: one line per requirement, the unmet ones with what is missing. */
export function formatPlan(plan: AuditPlan, verdict: PlanVerdict): string {
  const unverified = verdict.requirements.filter((r) => r.status === 'not verified').length;
  const passed = unverified > 0 ? `passed, with ${unverified} requirement${unverified === 1 ? '' : 's'} not verified` : 'passed';
  const lines = [`plan ${plan.name} (${plan.title}): ${verdict.passed ? passed : 'FAILED'}`];
  for (const r of verdict.requirements) {
    lines.push(`  ${r.status.padEnd(14)} ${r.clause.padEnd(12)} ${r.text}`);
    for (const m of r.missing) lines.push(`${' '.repeat(32)}${escapeTerminal(m)}`);
  }
  return `${lines.join('\n')}\n`;
}
