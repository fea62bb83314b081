import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { VERSION } from '../../../src/cli/program/version.js';
import { runCli } from '../../helpers/cli.js';

const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };

describe('the version', () => {
  it("is package.json's, in the built command line and in the source", async () => {
    const r = await runCli(['--version']);
    expect(r.code).toBe(0);
    expect(r.stdout.trim()).toBe(version);
    expect(VERSION).toBe(version);
  });
});
