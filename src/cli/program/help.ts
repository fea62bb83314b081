import type { Command, Help, HelpContext, Option } from 'commander';
import type { IO } from '../../output/io.js';
import { wrapWords } from '../../output/wrap.js';

/**
 * The layout of every `--help`, as gh lays out its own: the usage and what the command does, then its
 * examples, then its options in groups (its own first, then the server and client, the flow, the
 * client's authentication, the user agent, HTTP, output), everything wrapped to the terminal's width
 * at spaces, never inside a word. An example too long for a line is continued with `\`, as in a shell.
 */

/** Option groups of the commands that talk to a server as a client (those with --client-id), by long flag. */
const CLIENT_GROUPS: readonly (readonly [string, readonly string[]])[] = [
  [
    'Server and client:',
    [
      'auth-url',
      'issuer',
      'authorization-endpoint',
      'token-endpoint',
      'revocation-endpoint',
      'introspection-endpoint',
      'userinfo-endpoint',
      'par-endpoint',
      'device-authorization-endpoint',
      'backchannel-authentication-endpoint',
      'jwks-uri',
      'client-id',
      'protected-resource',
      'register',
      'client-metadata-url',
      'client-credentials',
      'id-token',
      'idp-token-endpoint',
      'idp-issuer',
      'idp-client-id',
      'idp-client-secret',
      'assertion',
      'profile',
      'config',
      'token-store',
    ],
  ],
  ['The flow:', ['redirect-uri', 'scope', 'state', 'pkce', 'no-pkce', 'code-verifier', 'code-challenge-method', 'param', 'resource', 'no-verify-id-token', 'response-mode', 'authorization-details']],
  ['Client authentication:', ['client-secret', 'auth-method', 'signing-key', 'signing-key-id', 'client-assertion-audience', 'tls-cert', 'tls-key', 'par', 'jar', 'dpop', 'dpop-key', 'fapi2']],
  ['User agent:', ['no-browser', 'manual', 'device', 'ciba', 'headless', 'username', 'password', 'consent', 'browser-driver', 'browser-path']],
  ['HTTP:', ['http-timeout', 'insecure']],
];
/** Every command's output options, grouped last. */
const OUTPUT_GROUP = ['Output:', ['json', 'quiet', 'verbose', 'no-color', 'show-secrets', 'trace', 'ui', 'ui-keep', 'step', 'help', 'version']] as const;
const OWN_GROUP = 'Options:';
const HEADINGS = [OWN_GROUP, ...CLIENT_GROUPS.map(([heading]) => heading), OUTPUT_GROUP[0]];

/** Past this width a help text is no easier to read. */
const MAX_WIDTH = 120;
const MIN_WIDTH = 40;
/** Terms wider than this get a line of their own, with their description under them. */
const MAX_TERM_WIDTH = 30;

/** The width help wraps to: the terminal's, else COLUMNS, else 80. */
export function helpWidth(io: IO): number {
  const stream = io.stdout as NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  const columns = stream.isTTY && stream.columns ? stream.columns : Number(io.env.COLUMNS) || 80;
  return Math.max(MIN_WIDTH, Math.min(MAX_WIDTH, columns));
}

/** The group an option is listed under. */
function groupOf(option: Option, clientCommand: boolean): string {
  const name = option.long?.replace(/^--/, '') ?? '';
  if ((OUTPUT_GROUP[1] as readonly string[]).includes(name)) return OUTPUT_GROUP[0];
  if (clientCommand) for (const [heading, names] of CLIENT_GROUPS) if (names.includes(name)) return heading;
  return OWN_GROUP;
}

/** A command line's words as a shell splits them (quotes kept whole), an option kept with its value. */
function commandChunks(command: string): string[] {
  const words = command.match(/(?:[^\s"']+|"[^"]*"|'[^']*')+/g) ?? [];
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!;
    const next = words[i + 1];
    if (/^--?[a-zA-Z]/.test(word) && !word.includes('=') && next !== undefined && !next.startsWith('-')) {
      chunks.push(`${word} ${next}`);
      i++;
    } else {
      chunks.push(word);
    }
  }
  return chunks;
}

/** One example, `$ command  # comment`: the comment on a line of its own above it when the line is too long, the command continued with `\`. */
function formatExample(line: string, indent: string, width: number): string[] {
  const [, command = '', comment] = /^\$ (.*?)(?:\s+(#.*))?$/.exec(line.trim()) ?? [];
  const whole = `${indent}${line.trim()}`;
  if (whole.length <= width) return [whole];
  const out = comment ? wrapWords(comment.replace(/^#\s*/, ''), width - indent.length - 2).map((l) => `${indent}# ${l}`) : [];
  const room = width - indent.length - 2 - 4;
  // A chunk wider than the line (a quoted command substitution) is broken at its spaces: inside double
  // quotes, too, a backslash and newline are removed by the shell (inside single quotes they are not).
  const chunks = commandChunks(command).flatMap((c) => (c.length > room && !/'[^']* [^']*'/.test(c) ? c.split(' ') : [c]));
  const wrapped = wrapWords(['$', ...chunks], room);
  return [...out, ...wrapped.map((l, i) => `${indent}${i > 0 ? '    ' : ''}${l}${i < wrapped.length - 1 ? ' \\' : ''}`)];
}

/** The text commander would print after the help (`addHelpText('after', ...)`): examples and notes. */
function formatAfterText(text: string, width: number): string[] {
  const out: string[] = [];
  // A paragraph of prose (lines at the margin, not a heading, a list item or an example) is wrapped as
  // one text, so that it fills the width evenly whatever the source's line breaks were.
  const isProse = (line: string) => line.trim() !== '' && !/^\s/.test(line) && !/^[-*|$]/.test(line) && !/:$/.test(line);
  const lines: string[] = [];
  // An example the source already continued with `\` is one line again, to be wrapped to this width.
  for (const raw of text
    .replace(/^\n+|\n+$/g, '')
    .replace(/ *\\\n\s*/g, ' ')
    .split('\n')) {
    const last = lines.length - 1;
    if (last >= 0 && isProse(raw) && isProse(lines[last]!)) lines[last] = `${lines[last]} ${raw.trim()}`;
    else lines.push(raw);
  }
  for (const raw of lines) {
    if (raw.trim() === '') out.push('');
    else if (/^\s*\$ /.test(raw)) out.push(...formatExample(raw, '  ', width));
    else if (/:$/.test(raw.trim()) && !/^\s/.test(raw)) out.push(raw.trim());
    else {
      const indent = /^\s*/.exec(raw)?.[0] ?? '';
      out.push(...wrapWords(raw, width - indent.length).map((l) => `${indent}${l}`));
    }
  }
  return out;
}

/** A term and its description: side by side, or the description under a wide term; wrapped either way. */
function formatItem(term: string, termWidth: number, description: string, width: number): string[] {
  if (description === '') return [`  ${term}`];
  if (term.length <= termWidth) {
    const lines = wrapWords(description, width - termWidth - 4);
    return lines.map((l, i) => `  ${(i === 0 ? term : '').padEnd(termWidth)}  ${l}`);
  }
  return [`  ${term}`, ...wrapWords(description, width - termWidth - 4).map((l) => `  ${''.padEnd(termWidth)}  ${l}`)];
}

/** The whole help text of a command. */
function formatHelp(cmd: Command, helper: Help, after: string): string {
  const width = helper.helpWidth ?? 80;
  const options = helper.visibleOptions(cmd);
  const args = helper.visibleArguments(cmd);
  const commands = helper.visibleCommands(cmd);
  const terms = [...options.map((o) => helper.optionTerm(o)), ...args.map((a) => helper.argumentTerm(a)), ...commands.map((c) => helper.subcommandTerm(c))];
  const termWidth = Math.min(MAX_TERM_WIDTH, Math.max(0, ...terms.filter((t) => t.length <= MAX_TERM_WIDTH).map((t) => t.length)));
  const out: string[] = [`Usage: ${helper.commandUsage(cmd)}`, ''];
  const description = helper.commandDescription(cmd);
  if (description) out.push(...wrapWords(description, width), '');
  if (after.trim() !== '') out.push(...formatAfterText(after, width), '');
  if (args.length > 0) {
    out.push('Arguments:');
    for (const a of args) out.push(...formatItem(helper.argumentTerm(a), termWidth, helper.argumentDescription(a), width));
    out.push('');
  }
  const clientCommand = cmd.options.some((o) => o.long === '--client-id');
  for (const heading of HEADINGS) {
    const group = options.filter((o) => groupOf(o, clientCommand) === heading);
    if (group.length === 0) continue;
    out.push(heading);
    for (const o of group) out.push(...formatItem(helper.optionTerm(o), termWidth, helper.optionDescription(o), width));
    out.push('');
  }
  if (commands.length > 0) {
    out.push('Commands:');
    for (const c of commands) out.push(...formatItem(helper.subcommandTerm(c), termWidth, helper.subcommandDescription(c), width));
    out.push('');
  }
  return `${out.join('\n').replace(/\n+$/, '')}\n`;
}

/**
 * What a command's `addHelpText('after', ...)` writes (its examples and notes), taken from it so that it
 * is laid out after the description rather than at the end. A commander Command is an EventEmitter whose
 * help text listeners run on 'afterHelp' (its typings leave that out).
 */
function takeAfterText(cmd: Command): string {
  const events = cmd as unknown as NodeJS.EventEmitter;
  let text = '';
  const context = { error: false, command: cmd, write: (s: string) => (text += s) } as unknown as HelpContext;
  for (const listener of events.listeners('afterHelp')) (listener as (c: HelpContext) => void)(context);
  events.removeAllListeners('afterHelp');
  return text;
}

/** Lays out the help of the program and every command registered on it (call once they are). */
export function useHelpLayout(program: Command, io: IO): void {
  for (const cmd of [program, ...program.commands, ...program.commands.flatMap((c) => c.commands)]) {
    const after = takeAfterText(cmd);
    cmd.configureOutput({ ...cmd.configureOutput(), getOutHelpWidth: () => helpWidth(io), getErrHelpWidth: () => helpWidth(io) });
    cmd.configureHelp({ formatHelp: (c, helper) => formatHelp(c, helper, after) });
  }
}
