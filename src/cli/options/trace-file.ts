import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { buildHar, HarRecorder } from '../../output/har.js';
import { redactHar } from '../../output/har-redact.js';
import type { IO } from '../../output/io.js';
import { jsonText } from '../../output/render.js';

/** A command's `--trace FILE` under way: the recorder is on its IO; save() writes the file however the command ended. */
export interface TraceSession {
  save(): Promise<void>;
}

/** Starts recording when the command was given `--trace FILE` (main.ts, before the command's action). */
export function startTrace(action: Command, io: IO, version: string): TraceSession | undefined {
  const { trace: file, showSecrets } = action.opts<{ trace?: string; showSecrets?: boolean }>();
  if (typeof file !== 'string') return undefined;
  // --ui may have started the recorder already: one recorder for the page and the file.
  const recorder = (io.har ??= new HarRecorder());
  return {
    async save() {
      const { writeFileAtomic } = await import('../../store/atomic-file.js');
      await recorder.settled();
      const har = buildHar(recorder, { redacted: showSecrets !== true, version });
      try {
        // 0600 and atomic: a trace made with --show-secrets holds tokens.
        await writeFileAtomic(file, `${jsonText(showSecrets === true ? har : redactHar(har, recorder.secrets))}\n`, { mode: 0o600 });
      } catch (err) {
        throw new UsageError(`cannot write the trace to ${file}: ${(err as Error).message}`, 'check that its directory exists and is writable');
      }
    },
  };
}
