import { markdownCell } from './markdown.js';
import { PROBE_CATEGORIES, type AuditProbe, type ProbeCategory } from './types.js';

/** A probe as `audit --list --json` shows it. */
export interface ProbeListing {
  id: string;
  category: ProbeCategory;
  title: string;
  /** The specification section the probe checks. */
  spec: string;
  threat: string;
  remedy: string;
}

export function probeListing(probes: readonly AuditProbe[]): ProbeListing[] {
  return probes.map((p) => ({ id: p.id, category: p.category, title: p.title, spec: p.rfc, threat: p.threat, remedy: p.remedy }));
}

/** The probes grouped by category, in the categories' order. */
export function byCategory(probes: readonly AuditProbe[]): [ProbeCategory, AuditProbe[]][] {
  return PROBE_CATEGORIES.map((c) => [c, probes.filter((p) => p.category === c)] as [ProbeCategory, AuditProbe[]]).filter(([, list]) => list.length > 0);
}

/** `audit --list`: one line per probe, grouped by category: id, threat, title. */
export function formatProbeList(probes: readonly AuditProbe[]): string {
  const idWidth = Math.max(...probes.map((p) => p.id.length), 2);
  const lines: string[] = [];
  for (const [category, list] of byCategory(probes)) {
    lines.push(`${category} (${list.length})`);
    for (const p of list) lines.push(`  ${p.id.padEnd(idWidth)}  ${p.title} [${p.threat}]`);
  }
  lines.push('', `${probes.length} probes in ${byCategory(probes).length} categories`);
  return `${lines.join('\n')}\n`;
}

/** The probe reference of docs/audit-probes.md: a table per category (id, what it checks, threat, remedy). */
export function probeReferenceMarkdown(probes: readonly AuditProbe[]): string {
  const lines: string[] = [];
  for (const [category, list] of byCategory(probes)) {
    lines.push(`### ${category}`, '', '| probe | checks | spec | threat | remedy |', '|---|---|---|---|---|');
    for (const p of list) lines.push(`| \`${p.id}\` | ${markdownCell(p.title)} | ${markdownCell(p.rfc)} | ${markdownCell(p.threat)} | ${markdownCell(p.remedy)} |`);
    lines.push('');
  }
  return lines.join('\n');
}
