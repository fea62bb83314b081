import type { AuditReport } from './types.js';

/** Escapes text for XML content and attributes; drops characters XML 1.0 cannot carry. */
export function xmlEscape(text: string): string {
  return text
    .replace(/[^\x09\x0A\x0D\x20-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/**
 * The report as JUnit XML, the format CI systems display: one testsuite, a testcase per probe,
 * <failure> for fail, <skipped> for skip, and a warn as a passing testcase whose <system-out> says why.
 */
export function toJUnitXml(report: AuditReport, suiteName: string, timestamp = new Date()): string {
  const { summary } = report;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="oauthctl audit" tests="${report.probes.length}" failures="${summary.fail}" skipped="${summary.skip}" errors="0">`,
    `  <testsuite name="${xmlEscape(suiteName)}" tests="${report.probes.length}" failures="${summary.fail}" skipped="${summary.skip}" errors="0" timestamp="${timestamp.toISOString().replace(/\.\d+Z$/, '')}">`,
  ];
  for (const p of report.probes) {
    const open = `    <testcase classname="oauthctl.audit" name="${xmlEscape(`${p.id}: ${p.title} (${p.rfc})`)}"`;
    const detail = xmlEscape(p.detail);
    if (p.status === 'pass') {
      lines.push(`${open}>`, `      <system-out>${detail}</system-out>`, '    </testcase>');
    } else if (p.status === 'fail') {
      lines.push(`${open}>`, `      <failure message="${detail}" type="${xmlEscape(p.rfc)}">${detail}</failure>`, '    </testcase>');
    } else if (p.status === 'skip') {
      lines.push(`${open}>`, `      <skipped message="${detail}"/>`, '    </testcase>');
    } else {
      lines.push(`${open}>`, `      <system-out>WARNING: ${detail}</system-out>`, '    </testcase>');
    }
  }
  // What the run left untested, so that a short run is not read as a clean bill.
  if (summary.not_tested.length > 0) lines.push(`    <system-out>${xmlEscape(['Not tested:', ...summary.not_tested.map((n) => `${n.what}: ${n.why}`)].join('\n'))}</system-out>`);
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
