import kleur from 'kleur';
import { escapeTerminal } from '../output/escape.js';
import type { OutStream } from '../output/io.js';
import { wrapWords } from '../output/wrap.js';
import type { AuditReport, ProbeResult, ProbeStatus } from './types.js';

const PAINT: Record<ProbeStatus, (s: string) => string> = {
  pass: (s) => kleur.green(s),
  fail: (s) => kleur.red().bold(s),
  warn: (s) => kleur.yellow(s),
  skip: (s) => kleur.gray(s),
};

function painter(color: boolean): (status: ProbeStatus, text: string) => string {
  return (status, text) => {
    if (!color) return text;
    const before = kleur.enabled;
    kleur.enabled = true;
    try {
      return PAINT[status](text);
    } finally {
      kleur.enabled = before;
    }
  };
}

/** After the counts, when the audit was of a resource: how many probes were about it, and how many about its authorization server. */
function aboutText(about: AuditReport['summary']['about'] | undefined): string {
  if (about === undefined || about.resource === 0) return '';
  return ` (${about.resource} about the resource, ${about.authorization_server} about its authorization server)`;
}

/** The summary: the probes that failed and warned by name, then the counts (the last line). */
function summaryLines(report: AuditReport, color: boolean): string[] {
  const paint = painter(color);
  const named = (status: ProbeStatus) => report.probes.filter((p) => p.status === status).map((p) => p.id);
  const [failed, warned] = [named('fail'), named('warn')];
  const s = report.summary;
  return [
    ...(failed.length > 0 ? [`${paint('fail', 'Failed:')} ${failed.join(', ')}`] : []),
    ...(warned.length > 0 ? [`${paint('warn', 'Warnings:')} ${warned.join(', ')}`] : []),
    `${s.pass} passed, ${s.fail ? paint('fail', `${s.fail} failed`) : '0 failed'}, ${s.warn ? paint('warn', `${s.warn} warning${s.warn === 1 ? '' : 's'}`) : '0 warnings'}, ${s.skip} skipped${aboutText(s.about)}`,
    // A short run is never a clean bill: what was not tested, and why.
    ...(s.not_tested.length > 0 ? ['Not tested:', ...s.not_tested.map((n) => `  ${n.what}: ${escapeTerminal(n.why)}`)] : []),
  ];
}

/** The human table: id, status (coloured on a terminal), RFC section, what was seen (remote text escaped); then the summary. */
export function formatAuditTable(report: AuditReport, color: boolean): string {
  const paint = painter(color);
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
  lines.push('', ...summaryLines(report, color));
  return `${lines.join('\n')}\n`;
}

/** Where the details of a verdict start: under the id, after the status column. */
const DETAIL_INDENT = '      ';
const CLEAR_LINE = '\r\x1b[2K';

/** One verdict: status, id and RFC section on a line, what was seen wrapped under it (remote text escaped). */
export function formatVerdict(result: ProbeResult, idWidth: number, width: number, color: boolean): string {
  const head = `${painter(color)(result.status, result.status.toUpperCase().padEnd(4))}  ${result.id.padEnd(idWidth)}  ${result.rfc}`;
  const detail = escapeTerminal(result.detail)
    .split('\n')
    .filter((paragraph) => paragraph.trim() !== '')
    .flatMap((paragraph) => wrapWords(paragraph, Math.max(20, width - DETAIL_INDENT.length)))
    .map((l) => `${DETAIL_INDENT}${l}`);
  return `${[head.trimEnd(), ...detail].join('\n')}\n`;
}

/** The audit as it runs, for a person: each probe once, its verdict as soon as it is known, then the summary. */
export interface AuditView {
  /** A probe starts: on a terminal, a line saying so, which its verdict replaces. */
  start(probe: { id: string; title: string }, index: number, total: number): void;
  done(result: ProbeResult): void;
  finish(report: AuditReport): void;
}

/**
 * Verdicts on `stream` as each probe ends. On a terminal (`live`) a line names the probe running and is
 * replaced by its verdict; elsewhere only the verdicts are written, one after another. Details wrap to
 * the terminal's width (80 elsewhere) under the verdict, indented.
 */
export function createAuditView(stream: OutStream, options: { color: boolean; live: boolean; idWidth: number }): AuditView {
  const width = stream.isTTY && stream.columns ? stream.columns : 80;
  let pending = false;
  return {
    start(probe, index, total) {
      if (!options.live) return;
      const text = escapeTerminal(`[${index + 1}/${total}] ${probe.id}: ${probe.title}`);
      stream.write(`${CLEAR_LINE}${text.length > width - 1 ? `${text.slice(0, width - 2)}…` : text}`);
      pending = true;
    },
    done(result) {
      stream.write(`${pending ? CLEAR_LINE : ''}${formatVerdict(result, options.idWidth, width, options.color)}`);
      pending = false;
    },
    finish(report) {
      if (pending) stream.write(CLEAR_LINE);
      stream.write(`\n${summaryLines(report, options.color).join('\n')}\n`);
    },
  };
}

/**
 * Progress on stderr while the results go elsewhere (stdout piped): on a terminal one line, the probe
 * running, redrawn in place and cleared at the end, so no probe is shown twice.
 */
export function createProgressLine(stream: OutStream): Pick<AuditView, 'start'> & { clear(): void } {
  const width = stream.columns ?? 80;
  return {
    start(probe, index, total) {
      const text = escapeTerminal(`[${index + 1}/${total}] ${probe.id}: ${probe.title}`);
      stream.write(`${CLEAR_LINE}${text.length > width - 1 ? `${text.slice(0, width - 2)}…` : text}`);
    },
    clear() {
      stream.write(CLEAR_LINE);
    },
  };
}
