/** `--help`/`-h` for every command and subcommand, the short `vigil --help`, and "did you mean" for subcommands. */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, main } from '../../src/cli.js';
import type { CliIo } from '../../src/client/commands/cli-io.js';
import { commandHelp, helpAsked, subcommandsOf, unknownSubcommand } from '../../src/client/commands/command-help.js';
import { COMMAND_HELP } from '../../src/client/commands/help-catalogue.js';
import { RUN_USAGE } from '../../src/config.js';

/** Runs `vigil …` with no daemon anywhere: help and usage mistakes must not need one. */
async function vigil(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    // Nothing listens on port 9: a command that tried to connect would fail with exit 1.
    env: { VIGIL_HOST: '127.0.0.1', VIGIL_PORT: '9', VIGIL_TOKEN: 't', VIGIL_DATA_DIR: '/nonexistent/vigil-help' },
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
    readFile: (path) => readFile(path, 'utf8'),
    writeFile: () => Promise.reject(new Error('no writes in help')),
    interrupted: () => new Promise(() => undefined),
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}

const COMMANDS = COMMAND_HELP.map((help) => help.name);

describe('vigil --help', () => {
  it('is a short list of the commands that fits a screen (40 lines), each command once', async () => {
    for (const flag of ['--help', '-h', 'help']) {
      const { code, stdout, stderr } = await vigil([flag]);
      expect(code).toBe(0);
      expect(stderr).toBe('');
      const lines = stdout.trimEnd().split('\n');
      expect(lines.length).toBeLessThanOrEqual(40);
      for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(120);
      for (const name of COMMANDS) expect(stdout).toMatch(new RegExp(`^  ${name} `, 'm'));
      // The command list only: no command's usage block repeated after it.
      expect(stdout).not.toMatch(/usage: vigil (send|webhooks)/);
      expect(stdout).toMatch(/vigil COMMAND --help/);
    }
  });

  it('an unknown command: exit 2, the nearest name, then the short list', async () => {
    const { code, stderr } = await vigil(['sned']);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^vigil: unknown command "sned" \(did you mean "send"\?\)\n/);
    expect(stderr.trimEnd().split('\n').length).toBeLessThanOrEqual(41);
  });
});

describe('vigil COMMAND --help', () => {
  it('has help for every command there is, and for no other', () => {
    expect([...COMMANDS].sort()).toEqual([...COMMAND_NAMES].sort());
  });

  it.each(COMMANDS)('%s --help and -h: exit 0, that command usage alone on stdout', async (name) => {
    for (const flag of ['--help', '-h']) {
      const { code, stdout, stderr } = await vigil([name, flag]);
      expect(code, `vigil ${name} ${flag}`).toBe(0);
      expect(stderr).toBe('');
      expect(stdout).toMatch(new RegExp(`^usage: vigil ${name}\\b`));
      // Only this command: no other command's usage, and no Node parseArgs text.
      const others = stdout.match(/vigil (\w+)/g)?.filter((m) => m !== `vigil ${name}` && m !== 'vigil rpc');
      expect(others ?? [], stdout).toEqual([]);
      expect(stdout).not.toMatch(/Unknown option|parseArgs/);
    }
  });

  it('send --help is help, not an unknown option (exit 2 before); `vigil send -- --help` still sends the text', async () => {
    const help = await vigil(['send', '--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: vigil send TEXT/);
    expect(helpAsked(['--', '--help'])).toBe(false);
    expect(helpAsked(['hello', '-h'])).toBe(true);
    // After --, it is the message: the command runs and, with no daemon, fails to connect (exit 1), not help.
    const sent = await vigil(['send', '--', '--help']);
    expect(sent.code).toBe(1);
    expect(sent.stdout).toBe('');
  });

  it.each(COMMAND_HELP.flatMap((help) => subcommandsOf(help).map((sub) => [help.name, sub] as const)))(
    '%s %s --help: exit 0, that subcommand usage',
    async (name, sub) => {
      for (const argv of [
        [name, sub, '--help'],
        [name, sub, 'SOME_ID', '-h'],
      ]) {
        const { code, stdout } = await vigil(argv);
        expect(code, argv.join(' ')).toBe(0);
        const usages = stdout.split('\n').filter((line) => /^(usage: | {7})vigil /.test(line));
        expect(usages).toEqual([expect.stringMatching(new RegExp(`^usage: vigil ${name} ${sub}\\b`))]);
      }
    },
  );

  it('vigil help webhooks is vigil webhooks --help; run --help prints the daemon usage', async () => {
    expect((await vigil(['help', 'webhooks'])).stdout).toBe((await vigil(['webhooks', '--help'])).stdout);
    const run = await vigil(['run', '--help']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n')[0]).toBe(RUN_USAGE);
  });
});

describe('an unknown option', () => {
  it("is named with the nearest flags, in balanced quotes (Node's sentence ended in an open one)", async () => {
    const { code, stderr } = await vigil(['webhooks', 'list', '--jsn']);
    expect(code).toBe(2);
    const [line] = stderr.split('\n');
    expect(line).toBe(
      `vigil: Unknown option '--jsn' (did you mean --json?). A text that starts with - goes after --, as in: -- "--jsn"`,
    );
    expect(stderr).toMatch(/\nusage: vigil webhooks/);
  });
});

describe('did you mean, for subcommands', () => {
  it.each([
    [['webhooks', 'lst'], /unknown webhooks subcommand "lst" \(did you mean "list"/],
    [['tools', 'aprove', 'c1'], /unknown tools subcommand "aprove" \(did you mean "approve"\?\)/],
    [['checkpoints', 'restor', 'x'], /unknown checkpoints subcommand "restor" \(did you mean "restore"\?\)/],
    [['conversation', 'serach', 'x'], /unknown conversation subcommand "serach" \(did you mean "search"\?\)/],
    [
      ['schedules', 'frobnicate'],
      /unknown schedules subcommand "frobnicate"\.\nusage: vigil schedules list \[--json\]\n {7}vigil schedules add /,
    ],
  ])('vigil %j: exit 2, the nearest subcommand, then that command usage', async (argv, message) => {
    const { code, stdout, stderr } = await vigil(argv);
    expect(code).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toMatch(message);
    expect(stderr).toMatch(new RegExp(`\\nusage: vigil ${argv[0]!}`));
  });

  it('leaves a known subcommand, a flag first and commands without subcommands to the command', () => {
    const webhooks = COMMAND_HELP.find((help) => help.name === 'webhooks')!;
    expect(unknownSubcommand(webhooks, ['list'])).toBeUndefined();
    expect(unknownSubcommand(webhooks, ['--json', 'list'])).toBeUndefined();
    expect(
      unknownSubcommand(
        COMMAND_HELP.find((help) => help.name === 'send')!,
        ['hello'],
      ),
    ).toBeUndefined();
  });

  it("names in the help catalogue are the commands' own: each subcommand is in the command's usage error text", async () => {
    const usages = await Promise.all(
      COMMAND_HELP.filter((help) => help.name !== 'run').map(async (help) => {
        const { code, stderr } = await vigil([help.name, '--frobnicate']);
        expect(code, help.name).toBe(2);
        return [help, stderr] as const;
      }),
    );
    for (const [help, stderr] of usages) {
      for (const sub of subcommandsOf(help)) expect(stderr, `${help.name} ${sub}`).toMatch(new RegExp(`\\b${sub}\\b`));
    }
    expect(commandHelp(webhooksHelp())).toMatch(/^usage: vigil webhooks add URL/);
  });
});

function webhooksHelp() {
  return COMMAND_HELP.find((help) => help.name === 'webhooks')!;
}
