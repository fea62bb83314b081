import kleur from 'kleur';
import { escapeTerminal } from '../output/escape.js';
import type { AuditReport, ProbeStatus } from './types.js';

const PAINT: Record<ProbeStatus, (s: string) => string> = {
  pass: (s) => kleur.green(s),
  fail: (s) => kleur.red().bold(s),
  warn: (s) => kleur.yellow(s),
  skip: (s) => kleur.gray(s),
};

/** The human table: id, status (coloured on a terminal), RFC section, what was seen (remote text escaped); then the summary. */
export function formatAuditTable(report: AuditReport, color: boolean): string {
  const paint = (status: ProbeStatus, text: string) => {
    if (!color) return text;
    const before = kleur.enabled;
    kleur.enabled = true;
    try {
      return PAINT[status](text);
    } finally {
      kleur.enabled = before;
    }
  };
  // The detail quotes what the server said (page text, error descriptions): escaped for the terminal.
  const rows = report.probes.map((p) => [p.id, p.status.toUpperCase(), p.rfc, escapeTerminal(p.detail)] as const);
  const idWidth = Math.max(5, ...rows.map((r) => r[0].length));
  const rfcWidth = Math.max(3, ...rows.map((r) => r[2].length));
  const lines = [`${'PROBE'.padEnd(idWidth)}  STATUS  ${'RFC'.padEnd(rfcWidth)}  DETAIL`];
  report.probes.forEach((p, i) => {
    const row = rows[i];
    if (!row) return;
    lines.push(`${row[0].padEnd(idWidth)}  ${paint(p.status, row[1].padEnd(6))}  ${row[2].padEnd(rfcWidth)}  ${row[3]}`);
  });
  const s = report.summary;
  lines.push(
    '',
    `${s.pass} passed, ${s.fail ? paint('fail', `${s.fail} failed`) : '0 failed'}, ${s.warn ? paint('warn', `${s.warn} warning${s.warn === 1 ? '' : 's'}`) : '0 warnings'}, ${s.skip} skipped`,
  );
  if (s.not_tested.length > 0) lines.push('Not tested:', ...s.not_tested.map((n) => `  ${n.what}: ${escapeTerminal(n.why)}`));
  return `${lines.join('\n')}\n`;
}
