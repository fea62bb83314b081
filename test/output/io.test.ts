// processIO() leaves standard input unopened until a command reads it (creating process.stdin costs
// every short command milliseconds), and withIO() copies an IO without opening it either.
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { processIO, withIO, type IO } from '../../src/output/io.js';

describe('the IO of a command', () => {
  it('processIO() reads process.stdin only when asked for it', () => {
    const io = processIO();
    const stdin = Object.getOwnPropertyDescriptor(io, 'stdin');
    expect(typeof stdin?.get).toBe('function');
    expect(io.stdin).toBe(process.stdin);
  });

  it('withIO() keeps stdin a getter, replaces what it is given, and leaves the original alone', () => {
    let opened = 0;
    const stdin = new PassThrough();
    const io = {
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      env: { A: '1' },
      get stdin() {
        opened++;
        return stdin;
      },
    } as IO;
    const stderr = new PassThrough();
    const copy = withIO(io, { stderr });
    expect(opened).toBe(0);
    expect(copy.stderr).toBe(stderr);
    expect(io.stderr).not.toBe(stderr);
    expect(copy.stdout).toBe(io.stdout);
    expect(copy.env).toEqual({ A: '1' });
    expect(copy.stdin).toBe(stdin);
    expect(opened).toBe(1);
    copy.stderr = io.stdout;
    expect(io.stderr).not.toBe(io.stdout);
  });
});
