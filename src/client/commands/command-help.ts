/**
 * `--help` and `-h` for every command and subcommand, the short `vigil --help`, and "did you mean" for a misspelt
 * subcommand. Pure: the catalogue in, text out; src/cli.ts prints it.
 */
import { nearestNames } from '../../shared/nearest-names.js';
import { CLIENT_OPTIONS, COMMAND_HELP, type CommandHelp, type HelpForm } from './help-catalogue.js';

// Help text is wrapped to fit a narrow terminal.
const WIDTH = 100;

/** The help of command `name`, if there is such a command. */
export function commandHelpOf(name: string): CommandHelp | undefined {
  return COMMAND_HELP.find((help) => help.name === name);
}

/** The subcommands of a command (none for `send`, `rpc`, `events`, `mcp`, `run`). */
export function subcommandsOf(help: CommandHelp): string[] {
  return help.forms.flatMap((form) => (form.sub === undefined ? [] : [form.sub]));
}

/** True when the arguments ask for help: `--help` or `-h` before a `--` (after it, they are text). */
export function helpAsked(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end < 0 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}

/** ` (did you mean "a" or "b"?)` for the names near `typed`, or nothing. */
export function didYouMean(typed: string, names: readonly string[]): string {
  const near = nearestNames(typed, names);
  return near.length === 0 ? '' : ` (did you mean ${near.map((name) => `"${name}"`).join(' or ')}?)`;
}

/** `vigil --help`: one line per command, fitting a screen; each command's own `--help` has its usage. */
export function topLevelHelp(): string {
  const pad = Math.max(...COMMAND_HELP.map((help) => help.name.length)) + 2;
  const lines = [
    'usage: vigil COMMAND [ARGUMENTS]',
    '',
    'commands:',
    ...COMMAND_HELP.map((help) => `  ${help.name.padEnd(pad)}${help.summary}`),
    '',
    `  ${'--version'.padEnd(pad)}print the version`,
    `  ${'--help'.padEnd(pad)}print this list; vigil COMMAND --help prints that command's usage`,
    '',
    CLIENT_OPTIONS,
  ];
  return lines.join('\n');
}

/** Words of `text` in lines of at most `width` characters after `indent`. */
function wrap(text: string, indent: string, width = WIDTH): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter((w) => w !== '')) {
    if (line !== '' && indent.length + line.length + 1 + word.length > width) {
      lines.push(indent + line);
      line = word;
    } else line = line === '' ? word : `${line} ${word}`;
  }
  if (line !== '') lines.push(indent + line);
  return lines;
}

function formLines(help: CommandHelp, form: HelpForm, first: boolean): string[] {
  const usage = `vigil ${help.name}${form.usage === '' ? '' : ` ${form.usage}`}`;
  return [`${first ? 'usage: ' : '       '}${usage}`, ...wrap(form.about, '         ')];
}

/**
 * `vigil COMMAND [SUB] --help`: the usage of that command, or of its subcommand when `args` (the arguments after the
 * command's name) start with one, and what each form does.
 */
export function commandHelp(help: CommandHelp, args: readonly string[] = []): string {
  const named = args.find((arg) => !arg.startsWith('-'));
  const chosen = help.forms.filter((form) => form.sub !== undefined && form.sub === named);
  const forms = chosen.length > 0 ? chosen : help.forms;
  const lines = forms.flatMap((form, i) => formLines(help, form, i === 0));
  if (chosen.length === 0 && help.notes !== undefined) lines.push(...wrap(help.notes, '  '));
  if (help.client) lines.push('', CLIENT_OPTIONS);
  return lines.join('\n');
}

/** The usage lines of a command alone, for a usage mistake (its `--help` says what each does). */
export function commandUsage(help: CommandHelp): string {
  return help.forms
    .map(
      (form, i) => `${i === 0 ? 'usage: ' : '       '}vigil ${help.name}${form.usage === '' ? '' : ` ${form.usage}`}`,
    )
    .join('\n');
}

/**
 * The message for a first argument that is not one of the command's subcommands (`vigil webhooks lst`), with the
 * nearest names; undefined when it is one, when the command has none, or when the first argument is a flag.
 */
export function unknownSubcommand(help: CommandHelp, args: readonly string[]): string | undefined {
  const subs = subcommandsOf(help);
  const [first] = args;
  if (subs.length === 0 || first === undefined || first.startsWith('-') || subs.includes(first)) return undefined;
  return `unknown ${help.name} subcommand "${first}"${didYouMean(first, subs)}.`;
}
