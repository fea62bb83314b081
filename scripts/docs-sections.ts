import { environmentTable } from '../src/cli/options/environment.js';
import { probeReferenceMarkdown } from '../src/audit/list.js';
import { PROBES } from '../src/audit/probes/index.js';
import { FAPI2_PROBES } from '../src/audit/probes/fapi2/index.js';

/** A part of a docs page made from the code. */
export interface GeneratedSection {
  page: string;
  /** What it is made from, as the page's marker names it. */
  source: string;
  text: string;
}

export async function generatedSections(): Promise<GeneratedSection[]> {
  return [
    { page: 'docs/configuration.md', source: 'src/cli/options/environment.ts', text: environmentTable() },
    // Every probe: what `audit --list` prints, then the FAPI 2.0 ones (run by --plan fapi2).
    { page: 'docs/audit-probes.md', source: 'src/audit/probes', text: probeReferenceMarkdown([...PROBES, ...FAPI2_PROBES]).trimEnd() },
  ];
}

/** The page with the section between `<!-- generated from SOURCE ... -->` and `<!-- end of generated -->` replaced. */
export function replaceSection(content: string, source: string, text: string): string {
  const start = content.indexOf(`<!-- generated from ${source}`);
  if (start === -1) throw new Error(`no "<!-- generated from ${source}" marker in the page`);
  const open = content.indexOf('-->', start) + 3;
  const end = content.indexOf('<!-- end of generated -->', open);
  if (end === -1) throw new Error(`no "<!-- end of generated -->" after the ${source} marker`);
  return `${content.slice(0, open)}\n${text}\n${content.slice(end)}`;
}
