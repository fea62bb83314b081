/** A group of examples that run in order in one HOME: a code block of the README or of a page of docs/, or one command's --help. */
export interface ExampleBlock {
  /** Where it comes from: `README.md:123`, `docs/mock.md:40` or `oauthctl login --help`. */
  source: string;
  examples: string[];
  /** A CI workflow (YAML) rather than shell: its steps take env and secrets from the workflow. */
  workflow?: boolean;
}

/** Lines ending in a backslash continue on the next one, as in a shell. */
function joinContinuations(lines: readonly string[]): string[] {
  const out: string[] = [];
  let pending = '';
  for (const line of lines) {
    if (/\\\s*$/.test(line)) {
      pending += `${line.replace(/\\\s*$/, '').trimEnd()} `;
      continue;
    }
    out.push(pending + (pending ? line.trim() : line));
    pending = '';
  }
  if (pending) out.push(pending.trimEnd());
  return out;
}

/** A shell line that runs oauthctl: `oauthctl ...`, `VAR=x oauthctl ...`, `npx oauthctl`, `$(oauthctl ...)`, a pipe into it. */
export function runsOauthctl(line: string): boolean {
  const trimmed = line.trim();
  if (trimmed === '' || trimmed.startsWith('#')) return false;
  return /(^|[\s;|&(`"]|\$\()(npx )?oauthctl\s/.test(trimmed.replace(/#.*$/, ''));
}

/** The shell code blocks (sh, bash, console, shell) of a Markdown page, each with the lines that run oauthctl. */
export function extractMarkdownBlocks(readme: string, file = 'README.md'): ExampleBlock[] {
  const blocks: ExampleBlock[] = [];
  const lines = readme.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(sh|bash|shell|console|ya?ml)\s*$/.exec(lines[i] ?? '');
    if (!open) continue;
    const workflow = open[1]!.startsWith('y');
    const start = i + 1;
    let end = start;
    while (end < lines.length && !/^```\s*$/.test(lines[end] ?? '')) end++;
    const body = lines.slice(start, end).map((l) => (workflow ? l.trim() : l.replace(/^\$ /, '')));
    const examples = joinContinuations(body).filter((l) => (workflow ? l.startsWith('oauthctl ') : runsOauthctl(l)));
    if (examples.length > 0) blocks.push({ source: `${file}:${start}${workflow ? ' (CI workflow)' : ''}`, examples, ...(workflow && { workflow }) });
    i = end;
  }
  return blocks;
}

/** The `$ oauthctl ...` lines under "Examples:" of a --help text. */
export function extractHelpExamples(source: string, help: string): ExampleBlock[] {
  const at = help.indexOf('\nExamples:\n');
  if (at < 0) return [];
  const lines: string[] = [];
  for (const line of help.slice(at + '\nExamples:\n'.length).split('\n')) {
    if (line.trim() === '') break;
    lines.push(line.replace(/^\s*\$ /, ''));
  }
  // The help puts a long example's comment (`# exits 1: ...`) on lines of its own above it: it goes back on the example.
  const examples: string[] = [];
  let comment = '';
  for (const line of joinContinuations(lines)) {
    const text = line.trim();
    if (text.startsWith('#')) comment = comment ? `${comment} ${text.replace(/^#\s*/, '')}` : text;
    else if (runsOauthctl(line)) {
      examples.push(comment ? `${line}  ${comment}` : line);
      comment = '';
    }
  }
  return examples.length > 0 ? [{ source, examples }] : [];
}
