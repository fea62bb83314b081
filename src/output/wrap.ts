/**
 * Words (or any chunks that must stay whole) on lines of at most `width` characters, broken at spaces
 * only: a chunk longer than the width stays whole on a line of its own. For help texts and the
 * audit's details on a terminal, which would otherwise break words at the terminal's edge.
 */
export function wrapWords(text: string | readonly string[], width: number): string[] {
  const chunks = typeof text === 'string' ? text.split(/\s+/).filter(Boolean) : text;
  const lines: string[] = [];
  let line = '';
  for (const chunk of chunks) {
    if (line !== '' && line.length + 1 + chunk.length > width) {
      lines.push(line);
      line = chunk;
    } else {
      line = line === '' ? chunk : `${line} ${chunk}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines.length > 0 ? lines : [''];
}
