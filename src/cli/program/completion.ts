import { Command, type Option } from 'commander';
import { UsageError } from '../../errors.js';
import { COMMANDS, COMPLETION_SUMMARY } from './commands.js';
import { addQuietOption, setExitCode } from './command.js';
import type { IO } from '../../output/io.js';

/**
 * Shell completion built from the commands themselves: every command module is loaded and registered
 * on a scratch program, so the scripts list exactly the options the commands define.
 */
export interface CompletionOption {
  flags: string[];
  description: string;
  /** The option takes a value. */
  takesValue: boolean;
  /** Values to offer, if known. */
  values?: string[];
  /** Offer file names for the value. */
  file?: boolean;
  /** Offer the profile names from `oauthctl profile list --names`. */
  profile?: boolean;
}

export interface CompletionCommand {
  name: string;
  description: string;
  options: CompletionOption[];
  subcommands: CompletionCommand[];
}

export type Shell = 'bash' | 'zsh' | 'fish';
export const SHELLS: readonly Shell[] = ['bash', 'zsh', 'fish'];

/** Values of options whose values are a fixed set (by long flag). */
const KNOWN_VALUES: Readonly<Record<string, string[]>> = {
  '--auth-method': ['client_secret_basic', 'client_secret_post', 'none'],
  '--code-challenge-method': ['S256', 'plain'],
  '--method': ['S256', 'plain'],
  '--consent': ['approve', 'deny'],
  '--browser-driver': ['chromium'],
  '--token-store': ['file', 'keyring', 'none'],
  '-X': ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'],
};
const FILE_OPTIONS = /^--(config|junit|save|from|browser-path|key-file|ca-file|output|html)$/;
/** An option whose value is named `<FILE>` or `<PATH>` in its flags (--signing-key <FILE>, --tls-cert <FILE>, ...) completes file names too. */
const FILE_PLACEHOLDER = /<(FILE|PATH)>/;

/** Loads every command (skipping one that fails to load) and describes it. */
export async function collectCommands(io: IO): Promise<CompletionCommand[]> {
  const scratch = new Command('oauthctl').exitOverride();
  for (const [name, entry] of Object.entries(COMMANDS)) {
    try {
      (await entry.load()).register(scratch, io);
    } catch {
      scratch.command(name).description(entry.summary);
    }
  }
  register(scratch, io);
  const summaries: Record<string, string> = { completion: COMPLETION_SUMMARY };
  for (const [name, entry] of Object.entries(COMMANDS)) summaries[name] = entry.summary;
  return scratch.commands.map((c) => describeCommand(c, summaries[c.name()]));
}

function describeCommand(cmd: Command, summary?: string): CompletionCommand {
  return {
    name: cmd.name(),
    description: oneLine(summary ?? cmd.description()),
    options: [...cmd.options.filter((o) => !o.hidden).map(describeOption), { flags: ['-h', '--help'], description: 'show help', takesValue: false }],
    subcommands: cmd.commands.map((c) => describeCommand(c)),
  };
}

function describeOption(option: Option): CompletionOption {
  const flags = [option.short, option.long].filter((f): f is string => typeof f === 'string');
  const out: CompletionOption = { flags, description: oneLine(option.description), takesValue: option.required || option.optional };
  const values = option.argChoices ?? flags.map((f) => KNOWN_VALUES[f]).find((v) => v !== undefined);
  if (out.takesValue && values) out.values = [...values];
  if (out.takesValue && ((option.long && FILE_OPTIONS.test(option.long)) || FILE_PLACEHOLDER.test(option.flags))) out.file = true;
  if (option.long === '--profile') out.profile = true;
  return out;
}

function oneLine(text: string): string {
  return text.split('\n')[0]!.trim();
}

export function completionScript(shell: Shell, commands: CompletionCommand[]): string {
  if (shell === 'bash') return bashScript(commands);
  if (shell === 'zsh') return zshScript(commands);
  return fishScript(commands);
}

const PROFILE_NAMES = 'oauthctl profile list --names 2>/dev/null';

function bashScript(commands: CompletionCommand[]): string {
  const valueCases: string[] = [];
  const seen = new Set<string>();
  const all = commands.flatMap((c) => [c, ...c.subcommands]);
  for (const option of all.flatMap((c) => c.options)) {
    for (const flag of option.flags) {
      if (seen.has(flag) || !option.takesValue) continue;
      seen.add(flag);
      if (option.profile) valueCases.push(`    ${flag}) COMPREPLY=($(compgen -W "$(${PROFILE_NAMES})" -- "$cur")); return ;;`);
      else if (option.values) valueCases.push(`    ${flag}) COMPREPLY=($(compgen -W "${option.values.join(' ')}" -- "$cur")); return ;;`);
      else if (option.file) valueCases.push(`    ${flag}) COMPREPLY=($(compgen -f -- "$cur")); return ;;`);
      else valueCases.push(`    ${flag}) return ;;`);
    }
  }
  const commandCases = commands.map((c) => {
    const opts = c.options.flatMap((o) => o.flags).join(' ');
    if (c.subcommands.length === 0) return `    ${c.name}) words="${opts}" ;;`;
    const subCases = c.subcommands.map((s) => `        ${s.name}) words="${s.options.flatMap((o) => o.flags).join(' ')}" ;;`).join('\n');
    return `    ${c.name})
      case "$sub" in
${subCases}
        *) words="${c.subcommands.map((s) => s.name).join(' ')} ${opts}" ;;
      esac ;;`;
  });
  return `# bash completion for oauthctl. Load it with:
#   eval "$(oauthctl completion bash)"        (in ~/.bashrc)
_oauthctl() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}"
  local cmd="" sub="" words="" i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case "\${COMP_WORDS[i]}" in
      -*) ;;
      *) if [[ -z "$cmd" ]]; then cmd="\${COMP_WORDS[i]}"; elif [[ -z "$sub" ]]; then sub="\${COMP_WORDS[i]}"; fi ;;
    esac
  done
  case "$prev" in
${valueCases.join('\n')}
  esac
  case "$cmd" in
    "") words="${commands.map((c) => c.name).join(' ')} --help --version" ;;
${commandCases.join('\n')}
  esac
  COMPREPLY=($(compgen -W "$words" -- "$cur"))
}
complete -F _oauthctl oauthctl
`;
}

/** zsh: `[` `]` `:` and `'` are special inside _arguments specs. */
function zshEscape(text: string): string {
  return text.replace(/([[\]:\\])/g, '\\$1').replace(/'/g, "'\\''");
}

function zshArguments(options: CompletionOption[]): string {
  const specs = options.map((o) => {
    const action = !o.takesValue ? '' : o.profile ? `:profile:(\${(f)"$(${PROFILE_NAMES})"})` : o.values ? `:value:(${o.values.join(' ')})` : o.file ? ':file:_files' : ':value: ';
    const description = zshEscape(o.description);
    if (o.flags.length > 1) return `'(${o.flags.join(' ')})'{${o.flags.join(',')}}'[${description}]${action}'`;
    return `'${o.flags[0]}[${description}]${action}'`;
  });
  return specs.join(' \\\n        ');
}

function zshDescribe(commands: CompletionCommand[]): string {
  return commands.map((c) => `'${c.name}:${zshEscape(c.description)}'`).join(' ');
}

function zshScript(commands: CompletionCommand[]): string {
  const cases = commands.map((c) => {
    if (c.subcommands.length === 0) return `    ${c.name})\n      _arguments -s ${zshArguments(c.options)} '*: :_files' ;;`;
    const subCases = c.subcommands.map((s) => `        ${s.name}) _arguments -s ${zshArguments(s.options)} '*: :' ;;`).join('\n');
    return `    ${c.name})
      if (( CURRENT == 2 )); then
        local -a subcommands=(${zshDescribe(c.subcommands)})
        _describe -t subcommands 'oauthctl ${c.name} command' subcommands
        return
      fi
      local sub=\${words[2]}
      shift words; (( CURRENT-- ))
      case $sub in
${subCases}
      esac ;;`;
  });
  return `#compdef oauthctl
# zsh completion for oauthctl. Load it with:
#   eval "$(oauthctl completion zsh)"         (in ~/.zshrc, after compinit)
# or save it as _oauthctl in a directory of your $fpath.
_oauthctl() {
  if (( CURRENT == 2 )); then
    local -a commands=(${zshDescribe(commands)})
    _describe -t commands 'oauthctl command' commands
    return
  fi
  local cmd=\${words[2]}
  shift words; (( CURRENT-- ))
  case $cmd in
${cases.join('\n')}
  esac
}
if [[ "\${funcstack[1]}" == "_oauthctl" ]]; then _oauthctl "$@"; else compdef _oauthctl oauthctl; fi
`;
}

function fishQuote(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

function fishOption(condition: string, o: CompletionOption): string {
  const parts = ['complete -c oauthctl', `-n ${fishQuote(condition)}`];
  for (const flag of o.flags) parts.push(flag.startsWith('--') ? `-l ${flag.slice(2)}` : `-s ${flag.slice(1)}`);
  if (o.takesValue) {
    if (o.profile) parts.push(`-x -a ${fishQuote(`(${PROFILE_NAMES})`)}`);
    else if (o.values) parts.push(`-x -a ${fishQuote(o.values.join(' '))}`);
    else if (o.file) parts.push('-r -F');
    else parts.push('-x');
  }
  parts.push(`-d ${fishQuote(o.description)}`);
  return parts.join(' ');
}

function fishScript(commands: CompletionCommand[]): string {
  const lines = ['# fish completion for oauthctl. Load it with:', '#   oauthctl completion fish > ~/.config/fish/completions/oauthctl.fish', 'complete -c oauthctl -f'];
  for (const c of commands) lines.push(`complete -c oauthctl -n __fish_use_subcommand -a ${c.name} -d ${fishQuote(c.description)}`);
  for (const c of commands) {
    const inCommand = `__fish_seen_subcommand_from ${c.name}`;
    if (c.subcommands.length > 0) {
      const names = c.subcommands.map((s) => s.name).join(' ');
      for (const s of c.subcommands) {
        lines.push(`complete -c oauthctl -n ${fishQuote(`${inCommand}; and not __fish_seen_subcommand_from ${names}`)} -a ${s.name} -d ${fishQuote(s.description)}`);
        for (const o of s.options) lines.push(fishOption(`${inCommand}; and __fish_seen_subcommand_from ${s.name}`, o));
      }
    }
    for (const o of c.options) lines.push(fishOption(inCommand, o));
  }
  return `${lines.join('\n')}\n`;
}

function parseShell(value: string): Shell {
  if (!(SHELLS as readonly string[]).includes(value)) {
    throw new UsageError(`unknown shell ${JSON.stringify(value)}`, `use one of ${SHELLS.join(', ')}`);
  }
  return value as Shell;
}

export function register(program: Command, io: IO): void {
  addQuietOption(
    program
      .command('completion')
      .description('Print a shell completion script for bash, zsh or fish.')
      .argument('<SHELL>', `the shell: ${SHELLS.join(', ')}`, parseShell),
  )
    .addHelpText(
      'after',
      `
Examples:
  $ eval "$(oauthctl completion bash)"                                    # in ~/.bashrc
  $ eval "$(oauthctl completion zsh)"                                     # in ~/.zshrc, after compinit
  $ oauthctl completion fish > ~/.config/fish/completions/oauthctl.fish`,
    )
    .action(async (shell: Shell, _options: unknown, command: Command) => {
      io.stdout.write(completionScript(shell, await collectCommands(io)));
      setExitCode(command, 0);
    });
}
