import { createInterface } from 'node:readline';
import { escapeTerminal } from '../../output/escape.js';
import type { IO } from '../../output/io.js';
import type { HeldRequest, StepAnswer, StepField, Stepper } from '../../output/step.js';

/**
 * `--step` without `--ui`: each held request on stderr, then one question. Enter sends it, `e` edits a
 * parameter (its name, then its value; an empty value removes it, a new name adds it), `s` skips it,
 * `q` aborts. Everything shown is escaped for the terminal: URLs and values can come from a server.
 */
export function terminalStepper(io: IO, showSecrets: boolean): Stepper {
  return {
    showSecrets,
    async ask(request: HeldRequest): Promise<StepAnswer> {
      const rl = createInterface({ input: io.stdin, output: io.stderr, terminal: io.stdin.isTTY === true });
      const question = (text: string) => new Promise<string>((resolve) => rl.question(text, resolve));
      const closed = new Promise<StepAnswer>((resolve) => rl.once('close', () => resolve({ action: 'abort' })));
      const fields = request.fields.map((f) => ({ ...f }));
      try {
        for (;;) {
          show(io, request, fields);
          const word = await Promise.race([question('    Enter sends it, e edits a parameter, s skips it, q aborts: '), closed]);
          if (typeof word !== 'string') return word;
          const key = word.trim().toLowerCase();
          if (key === '') return { action: 'send', fields };
          if (key === 'q') return { action: 'abort' };
          if (key === 's') return { action: 'skip' };
          if (key !== 'e') continue;
          const name = await Promise.race([question('    parameter name: '), closed]);
          if (typeof name !== 'string') return name;
          const at = fields.findIndex((f) => f.name === name.trim() && f.place !== 'header');
          const target = at >= 0 ? fields[at]! : fields.find((f) => f.name.toLowerCase() === name.trim().toLowerCase() && f.place === 'header');
          if (target?.secret) {
            io.stderr.write('    that one is a secret, kept as it is (--show-secrets lets you change it)\n');
            continue;
          }
          const value = await Promise.race([question(`    new value of ${escapeTerminal(name.trim())} (empty removes it): `), closed]);
          if (typeof value !== 'string') return value;
          edit(fields, target, name.trim(), value);
        }
      } finally {
        rl.close();
      }
    },
  };
}

function edit(fields: StepField[], target: StepField | undefined, name: string, value: string): void {
  if (name === '') return;
  if (target === undefined) {
    if (value === '') return;
    // A new parameter goes where this request carries its parameters: a form body, else the query.
    fields.push({ place: fields.some((f) => f.place === 'form') ? 'form' : 'query', name, value, secret: false });
  } else if (value === '') fields.splice(fields.indexOf(target), 1);
  else target.value = value;
}

function show(io: IO, request: HeldRequest, fields: readonly StepField[]): void {
  const lines = [`==> Waiting for you: ${request.title}`, `    ${request.method} ${request.url.split('?')[0]}`];
  for (const f of fields) lines.push(`      ${f.place.padEnd(6)} ${f.name}=${f.value}`);
  io.stderr.write(`${lines.map((l) => escapeTerminal(l)).join('\n')}\n`);
}
