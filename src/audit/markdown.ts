import type { AuditReport, ProbeStatus } from './types.js';

const ICON: Record<ProbeStatus, string> = { pass: '✅ pass', fail: '❌ fail', warn: '⚠️ warn', skip: '⏭️ skip' };

/**
 * Text for one cell of a GitHub-flavoured Markdown table: control characters dropped, the characters
 * Markdown or HTML would act on escaped, so that remote text renders as text.
 */
export function markdownCell(text: string): string {
  return text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, ' ')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/([\\`*_[\]|#~!])/g, '\\$1');
}

/** The report as a Markdown table (a GitHub job summary: `--markdown "$GITHUB_STEP_SUMMARY"`). */
export function toMarkdown(report: AuditReport, heading: string): string {
  const s = report.summary;
  const lines = [
    `## ${markdownCell(heading)}`,
    '',
    `${s.pass} passed, ${s.fail} failed, ${s.warn} warnings, ${s.skip} skipped`,
    '',
    '| probe | status | RFC | detail |',
    '|---|---|---|---|',
    ...report.probes.map((p) => `| \`${p.id}\` | ${ICON[p.status]} | ${markdownCell(p.rfc)} | ${markdownCell(p.detail)} |`),
  ];
  if (s.not_tested.length > 0) lines.push('', '### Not tested', '', '| probes | why |', '|---|---|', ...s.not_tested.map((n) => `| ${markdownCell(n.what)} | ${markdownCell(n.why)} |`));
  return `${lines.join('\n')}\n`;
}
