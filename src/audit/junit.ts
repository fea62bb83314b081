import { escapeXml } from '../output/markup.js';
import type { AuditReport } from './types.js';

/**
 * The report as JUnit XML, the format CI systems display: one testsuite, a testcase per probe,
 * <failure> for fail, <skipped> for skip, and a warn as a passing testcase whose <system-out> says why.
 */
export function toJUnitXml(report: AuditReport, suiteName: string, timestamp = new Date()): string {
  const { summary } = report;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="oauthctl audit" tests="${report.probes.length}" failures="${summary.fail}" skipped="${summary.skip}" errors="0">`,
    `  <testsuite name="${escapeXml(suiteName)}" tests="${report.probes.length}" failures="${summary.fail}" skipped="${summary.skip}" errors="0" timestamp="${timestamp.toISOString().replace(/\.\d+Z$/, '')}">`,
  ];
  for (const p of report.probes) {
    const open = `    <testcase classname="oauthctl.audit" name="${escapeXml(`${p.id}: ${p.title} (${p.rfc})`)}"`;
    const detail = escapeXml(p.detail);
    if (p.status === 'pass') {
      lines.push(`${open}>`, `      <system-out>${detail}</system-out>`, '    </testcase>');
    } else if (p.status === 'fail') {
      lines.push(`${open}>`, `      <failure message="${detail}" type="${escapeXml(p.rfc)}">${detail}</failure>`, '    </testcase>');
    } else if (p.status === 'skip') {
      lines.push(`${open}>`, `      <skipped message="${detail}"/>`, '    </testcase>');
    } else {
      lines.push(`${open}>`, `      <system-out>WARNING: ${detail}</system-out>`, '    </testcase>');
    }
  }
  // What the run left untested, so that a short run is not read as a clean bill.
  if (summary.not_tested.length > 0) lines.push(`    <system-out>${escapeXml(['Not tested:', ...summary.not_tested.map((n) => `${n.what}: ${n.why}`)].join('\n'))}</system-out>`);
  lines.push('  </testsuite>', '</testsuites>', '');
  return lines.join('\n');
}
