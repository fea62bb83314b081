import type { AuditReport, ProbeResult } from './types.js';

/** The schema a SARIF 2.1.0 log names (OASIS SARIF 2.1.0 errata 01, section 3.13.3). */
const SARIF_SCHEMA = 'https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json';

/**
 * The report as a SARIF 2.1.0 log (for GitHub code scanning): one result per failing or warning probe
 * (level error or warning), its rule built from the probe's title, threat and remedy; the audited
 * server is the result's location (SARIF section 3.4.3 allows an absolute URI there).
 */
export function toSarif(report: AuditReport, target: string): string {
  const findings = report.probes.filter((p) => p.status === 'fail' || p.status === 'warn');
  const rules = findings.map(rule);
  const results = findings.map((p, ruleIndex) => ({
    ruleId: p.id,
    ruleIndex,
    level: p.status === 'fail' ? 'error' : 'warning',
    message: { text: p.detail || p.title },
    locations: [{ physicalLocation: { artifactLocation: { uri: target } } }],
  }));
  const log = {
    $schema: SARIF_SCHEMA,
    version: '2.1.0',
    runs: [
      {
        tool: { driver: { name: 'oauthctl audit', rules } },
        results,
        properties: { summary: { pass: report.summary.pass, fail: report.summary.fail, warn: report.summary.warn, skip: report.summary.skip }, not_tested: report.summary.not_tested },
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

function rule(p: ProbeResult) {
  return {
    id: p.id,
    name: p.id.replace(/(^|-)([a-z0-9])/g, (_m: string, _dash: string, c: string) => c.toUpperCase()),
    shortDescription: { text: p.title },
    fullDescription: { text: `${p.title}. Threat: ${p.threat}. Checks ${p.rfc}.` },
    help: { text: p.remedy },
    properties: { tags: ['security', 'oauth', p.category], category: p.category, threat: p.threat, rfc: p.rfc },
  };
}
