import type prompts from 'prompts';
import { UsageError } from '../../errors.js';
import type { FlowOptionsInput } from './flow-options.js';
import type { IO } from '../../output/io.js';
import type { Renderer } from '../../output/render.js';
import type { HttpClient } from '../../client/http/http.js';

/**
 * Asks for missing required flow options on a terminal (prompts), offering what discovery says the
 * server supports. Never when stdin is not a TTY or with --json: then the usual missing-option error
 * (exit 2) follows, so scripts never hang on a question.
 */
export function canPrompt(io: IO, json: boolean | undefined): boolean {
  return io.stdin.isTTY === true && json !== true;
}

export interface PromptContext {
  http: HttpClient;
  renderer: Renderer;
  json?: boolean | undefined;
}

type Question = prompts.PromptObject<string>;

/** The raw options with what the user typed for a missing server, client id and scope. */
export async function promptForMissingOptions(raw: FlowOptionsInput, io: IO, ctx: PromptContext): Promise<FlowOptionsInput> {
  const needServer = raw.authUrl === undefined && raw.issuer === undefined && raw.authorizationEndpoint === undefined && raw.tokenEndpoint === undefined;
  const needClientId = raw.clientId === undefined || raw.clientId === '';
  const needScope = raw.scope === undefined || raw.scope.length === 0;
  // Nothing missing: stdin is not even opened (creating process.stdin costs a command about a millisecond).
  if (!needServer && !needClientId && !needScope) return raw;
  if (!canPrompt(io, ctx.json)) return raw;

  const { default: ask } = await import('prompts');
  const streams = { stdin: io.stdin, stdout: io.stderr };
  const out: FlowOptionsInput = { ...raw };
  const answer = async (question: Question): Promise<unknown> => {
    let cancelled = false;
    const answers = await ask({ ...question, ...streams }, { onCancel: () => void (cancelled = true) });
    if (cancelled) throw new UsageError('cancelled at the prompt', 'give the options as flags to skip the questions');
    return answers[question.name as string];
  };

  if (needServer) {
    out.issuer = String(
      await answer({
        type: 'text',
        name: 'issuer',
        message: 'Issuer URL of the authorization server (its metadata gives the endpoints)',
        validate: (v: string) => (/^https?:\/\/\S+$/i.test(v) && URL.canParse(v) ? true : 'an http or https URL, e.g. https://id.example.com'),
      }),
    );
  }
  if (needClientId) {
    out.clientId = String(await answer({ type: 'text', name: 'clientId', message: 'Client ID', validate: (v: string) => (v.trim() ? true : 'the client id is required') })).trim();
  }
  if (needScope) {
    const supported = await scopesSupported(out, ctx);
    if (supported.length > 0) {
      const chosen = (await answer({
        type: 'multiselect',
        name: 'scope',
        message: 'Scope (space to choose, enter to confirm)',
        choices: supported.map((s) => ({ title: s, value: s })),
        hint: 'the scopes the server lists in scopes_supported',
        instructions: false,
      })) as string[] | undefined;
      out.scope = chosen ?? [];
    } else {
      const typed = String((await answer({ type: 'text', name: 'scope', message: 'Scope (space-separated, empty for none)' })) ?? '');
      out.scope = typed.trim() ? [typed.trim()] : [];
    }
  }
  return out;
}

/** scopes_supported from the issuer's metadata, when there is an issuer and discovery works. */
async function scopesSupported(raw: FlowOptionsInput, ctx: PromptContext): Promise<string[]> {
  if (raw.issuer === undefined) return [];
  try {
    const { discoverMetadata } = await import('../../client/flows/endpoints.js');
    const { metadata } = await discoverMetadata(ctx.http, raw.issuer);
    return Array.isArray(metadata.scopes_supported) ? metadata.scopes_supported.filter((s): s is string => typeof s === 'string') : [];
  } catch {
    // The flow's own discovery reports the problem properly; here it only means no list to offer.
    return [];
  }
}

/**
 * The account for a login page the headless agent reached (`login --headless` without --username or
 * --password): what is missing asked for in one go on a terminal; elsewhere one line naming both.
 */
export async function askAccount(io: IO, url: string, given: { username?: string | undefined; password?: string | undefined }): Promise<{ username: string; password: string }> {
  if (!canPrompt(io, false)) {
    throw new UsageError(`the server at ${url} asks for a login`, 'give --username and --password (or OAUTHCTL_USERNAME and OAUTHCTL_PASSWORD)');
  }
  const [{ default: ask }, { holdSpinner }] = await Promise.all([import('prompts'), import('../../output/spinner.js')]);
  const release = holdSpinner(io.stderr);
  try {
    const questions: Question[] = [];
    if (given.username === undefined) questions.push({ type: 'text', name: 'username', message: 'Username', validate: (v: string) => (v.trim() ? true : 'the account name is required') });
    if (given.password === undefined) questions.push({ type: 'password', name: 'password', message: 'Password' });
    io.stderr.write(`The server asks for a login (${url}): ${questions.map((q) => q.name).join(' and ')}\n`);
    let cancelled = false;
    const answers = await ask(
      questions.map((q) => ({ ...q, stdin: io.stdin, stdout: io.stderr })),
      { onCancel: () => void (cancelled = true) },
    );
    if (cancelled) throw new UsageError('cancelled at the prompt', 'give --username and --password to skip the questions');
    return { username: given.username ?? String(answers.username).trim(), password: given.password ?? String(answers.password ?? '') };
  } finally {
    release();
  }
}
