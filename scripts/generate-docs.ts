// Writes the parts of docs/ that are made from the code: `npm run docs`. Each lies between
// `<!-- generated from SOURCE ... -->` and `<!-- end of generated -->`; test/docs/generated.test.ts
// fails when a page differs from what this writes.
import { readFileSync, writeFileSync } from 'node:fs';
import { generatedSections, replaceSection } from './docs-sections.js';

for (const { page, source, text } of await generatedSections()) {
  const before = readFileSync(page, 'utf8');
  const after = replaceSection(before, source, text);
  if (after !== before) {
    writeFileSync(page, after);
    console.log(`wrote ${page} (from ${source})`);
  }
}
