import type { Command } from 'commander';
import { UsageError } from '../../errors.js';
import { calculateCodeChallenge, codeVerifierProblem, generateCodeVerifier, DEFAULT_CODE_VERIFIER_LENGTH, type CodeChallengeMethod } from '../../oauth/pkce.js';
import { addQuietOption, setExitCode, parseInteger } from '../program/command.js';
import type { IO } from '../../output/io.js';

export interface PkceOptions {
  verifier?: string;
  length?: number;
  method?: CodeChallengeMethod;
  json?: boolean;
}

export interface PkceResult {
  code_verifier: string;
  code_challenge: string;
  code_challenge_method: CodeChallengeMethod;
}

/** A fresh pair, or the challenge of the given verifier after checking it against RFC 7636 section 4.1. */
export function runPkce(options: PkceOptions): PkceResult {
  const method = options.method ?? 'S256';
  if (options.verifier !== undefined && options.length !== undefined) {
    throw new UsageError('--verifier and --length cannot be used together', 'give one or the other');
  }
  let verifier: string;
  if (options.verifier !== undefined) {
    const problem = codeVerifierProblem(options.verifier);
    if (problem) throw new UsageError(problem, 'create a valid one with `oauthctl pkce`');
    verifier = options.verifier;
  } else {
    verifier = generateCodeVerifier(options.length ?? DEFAULT_CODE_VERIFIER_LENGTH);
  }
  return { code_verifier: verifier, code_challenge: calculateCodeChallenge(verifier, method), code_challenge_method: method };
}

export function renderPkce(result: PkceResult, options: PkceOptions, io: IO): void {
  if (options.json) {
    io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  io.stdout.write(`code_verifier=${result.code_verifier}\ncode_challenge=${result.code_challenge}\ncode_challenge_method=${result.code_challenge_method}\n`);
}

function parseMethod(value: string): CodeChallengeMethod {
  if (value !== 'S256' && value !== 'plain') {
    throw new UsageError(`--method must be S256 or plain, got ${JSON.stringify(value)}`);
  }
  return value;
}

export function register(program: Command, io: IO): void {
  const cmd = program
    .command('pkce')
    .description('Create a PKCE code verifier and its challenge (RFC 7636), or compute the challenge of a given verifier.')
    .option('--verifier <V>', 'use this code verifier (checked against RFC 7636 section 4.1) instead of a fresh one')
    .option('--length <N>', `length of a fresh verifier, 43 to 128 (default ${DEFAULT_CODE_VERIFIER_LENGTH})`, parseInteger('--length', 43, 128, 'RFC 7636 section 4.1'))
    .option('--method <M>', 'code challenge method: S256 (default) or plain', parseMethod)
    .option('--json', 'print {"code_verifier","code_challenge","code_challenge_method"}');
  addQuietOption(cmd)
    .addHelpText(
      'after',
      `
Examples:
  $ oauthctl pkce
  $ oauthctl pkce --json --length 128
  $ oauthctl pkce --verifier dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk`,
    )
    .action((options: PkceOptions, cmd: Command) => {
      renderPkce(runPkce(options), options, io);
      setExitCode(cmd, 0);
    });
}
