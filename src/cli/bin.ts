import { run } from './main.js';

const code = await run(process.argv.slice(2));
// Pipes, files and terminals are written synchronously on Linux and macOS; wait for a slow consumer otherwise.
if (process.stdout.writableNeedDrain) await new Promise((resolve) => process.stdout.once('drain', resolve));
process.exit(code);
