import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { startRecordingServer, type RecordingServer } from '../../helpers/recording-server.js';
import { HAS_SCRIPT, runCliOnTerminal } from '../../helpers/terminal.js';

/**
 * A hostile token endpoint on loopback whose error_description carries the Unicode bidirectional
 * controls (an override that shows "exe.gpj" as "jpg.exe", isolates, marks): on a real terminal
 * (script) every one of them arrives escaped, none raw, in the human output and in --json.
 */
const BIDI = ['\u202a', '\u202b', '\u202c', '\u202d', '\u202e', '\u2066', '\u2067', '\u2068', '\u2069', '\u200e', '\u200f', '\u061c'];
const HOSTILE = `invoice\u202egpj.exe ${BIDI.join('')}`;

let as: RecordingServer;
beforeAll(async () => {
  as = await startRecordingServer();
});
afterAll(() => as.close());
beforeEach(() => {
  as.reset();
  as.token = { status: 400, body: { error: 'invalid_client', error_description: HOSTILE } };
});

const clientCredentials = (extra: string[] = []) => ['client-credentials', '--token-endpoint', `${as.url}/token`, '--client-id', 'x', '--client-secret', 'y', '--scope', 'photo', ...extra];

describe.skipIf(!HAS_SCRIPT)("a server's bidirectional controls on a terminal", () => {
  it('the error_description reaches stderr with each control escaped', async () => {
    const { code, shown } = await runCliOnTerminal(clientCredentials());
    expect(code).toBe(1);
    expect(as.to('/token')).toHaveLength(1);
    for (const c of BIDI) expect(shown).not.toContain(c);
    expect(shown).toContain('invoice\\u202egpj.exe \\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c');
  });

  it('--json on a terminal: the controls as JSON escapes', async () => {
    const { shown } = await runCliOnTerminal(clientCredentials(['--json']));
    expect(as.to('/token')).toHaveLength(1);
    for (const c of BIDI) expect(shown).not.toContain(c);
  });
});
