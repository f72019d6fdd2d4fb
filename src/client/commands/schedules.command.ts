/** `vigil schedules list | add | remove | pause | resume`: shorthands for the `schedules.*` methods. */
import { MIN_SCHEDULE_EVERY_MS, type AddScheduleParams, type ScheduleView } from '../../protocol/schedules.schema.js';
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs, type ClientArgs } from './client-args.js';
import { printJson, runClientCommand } from './run-client-command.js';

/** The usage line. */
export const SCHEDULES_USAGE =
  'usage: vigil schedules list [--json] | schedules add TEXT (--cron EXPR [--timezone TZ] | --every DURATION | --at ISO) ' +
  '[--name N] [--catch-up skip|once|all] [--max-catch-up N] [--json] | schedules remove|pause|resume ID   [--url URL] [--token TOKEN] [--data-dir D]\n' +
  '  --every is at least 1m (a firing is a think): e.g. 90s, 30m, 2h, 1d';

type SchedulesRequest =
  | { sub: 'list'; args: ClientArgs }
  | { sub: 'add'; params: AddScheduleParams; args: ClientArgs }
  | { sub: 'remove' | 'pause' | 'resume'; id: string; args: ClientArgs };

const FLAGS = {
  json: { type: 'boolean' },
  cron: { type: 'string' },
  timezone: { type: 'string' },
  every: { type: 'string' },
  at: { type: 'string' },
  name: { type: 'string' },
  'catch-up': { type: 'string' },
  'max-catch-up': { type: 'string' },
} as const;

/** Runs `vigil schedules …`. */
export function schedulesCommand(argv: string[], io: CliIo): Promise<number> {
  return runClientCommand(
    io,
    SCHEDULES_USAGE,
    () => parseSchedulesArgs(argv).args,
    async (client) => {
      const request = parseSchedulesArgs(argv);
      const json = request.args.flags['json'] === true;
      const show = (schedule: ScheduleView): void =>
        json ? printJson(io, schedule) : io.stdout(`${formatSchedule(schedule)}\n`);
      switch (request.sub) {
        case 'list': {
          const schedules = await client.schedules.list();
          if (json) printJson(io, schedules);
          else for (const schedule of schedules) io.stdout(`${formatSchedule(schedule)}\n`);
          return 0;
        }
        case 'add':
          show(await client.schedules.add(request.params));
          return 0;
        case 'remove':
          await client.schedules.remove({ id: request.id });
          io.stdout(`removed ${request.id}\n`);
          return 0;
        case 'pause':
        case 'resume':
          show(await client.schedules[request.sub]({ id: request.id }));
          return 0;
      }
    },
  );
}

/** The parsed command line; UsageError on anything else. The daemon checks the values (a bad cron is its -32602). */
export function parseSchedulesArgs(argv: string[]): SchedulesRequest {
  const args = parseClientArgs(argv, FLAGS);
  const [sub, ...rest] = args.positionals;
  const flag = (name: keyof typeof FLAGS): string | undefined => {
    const value = args.flags[name];
    return typeof value === 'string' ? value : undefined;
  };
  const addFlags = (['cron', 'timezone', 'every', 'at', 'name', 'catch-up', 'max-catch-up'] as const).filter(
    (name) => flag(name) !== undefined,
  );
  if (sub === 'list') {
    if (rest.length > 0 || addFlags.length > 0) throw new UsageError('schedules list takes no arguments but --json.');
    return { sub, args };
  }
  if (sub === 'remove' || sub === 'pause' || sub === 'resume') {
    if (rest.length !== 1 || addFlags.length > 0) throw new UsageError(`schedules ${sub} needs exactly one ID.`);
    return { sub, id: rest[0]!, args };
  }
  if (sub === 'add') {
    if (rest.length === 0) throw new UsageError('schedules add needs the TEXT each firing sends.');
    const timings = (['cron', 'every', 'at'] as const).filter((name) => flag(name) !== undefined);
    if (timings.length !== 1) throw new UsageError('schedules add needs exactly one of --cron, --every or --at.');
    const every = flag('every');
    const maxCatchUp = flag('max-catch-up');
    const params = {
      text: rest.join(' '),
      ...(flag('cron') === undefined ? {} : { cron: flag('cron') }),
      ...(every === undefined ? {} : { everyMs: everyMs(every) }),
      ...(flag('at') === undefined ? {} : { at: flag('at') }),
      ...(flag('timezone') === undefined ? {} : { timezone: flag('timezone') }),
      ...(flag('name') === undefined ? {} : { name: flag('name') }),
      ...(flag('catch-up') === undefined ? {} : { catchUp: flag('catch-up') }),
      ...(maxCatchUp === undefined ? {} : { maxCatchUp: wholeNumber('--max-catch-up', maxCatchUp) }),
    } as AddScheduleParams;
    return { sub, params, args };
  }
  throw new UsageError(
    sub === undefined
      ? 'schedules needs a subcommand (list, add, remove, pause or resume).'
      : `unknown schedules subcommand "${sub}".`,
  );
}

const UNIT_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/** `--every`: milliseconds, or a number with a unit (`90s`, `30m`, `1h`, `1d`). */
export function parseDuration(text: string): number {
  const match = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(text.trim());
  if (match === null)
    throw new UsageError(
      `--every ${JSON.stringify(text)} is invalid: expected milliseconds or a duration such as 30m, 1h or 1d.`,
    );
  return Math.round(Number(match[1]) * UNIT_MS[match[2] ?? 'ms']!);
}

/** `--every` in milliseconds, at least a minute (CONTRACT §11): a shorter one is a usage error before any call. */
function everyMs(text: string): number {
  const ms = parseDuration(text);
  if (ms < MIN_SCHEDULE_EVERY_MS) {
    throw new UsageError(
      `--every ${JSON.stringify(text)} is too short: the shortest interval is 1m (${MIN_SCHEDULE_EVERY_MS} ms), since each firing is a think.`,
    );
  }
  return ms;
}

function wholeNumber(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isInteger(value))
    throw new UsageError(`${name} ${JSON.stringify(text)} is invalid: expected a whole number.`);
  return value;
}

/** One schedule as one line: `ID  NAME  WHEN  next NEXT  last LAST  catch-up POLICY  [paused]`, escaped of controls. */
export function formatSchedule(schedule: ScheduleView): string {
  const when =
    schedule.cron !== undefined
      ? `cron "${schedule.cron}" ${schedule.timezone}`
      : schedule.everyMs !== undefined
        ? `every ${schedule.everyMs} ms`
        : `at ${schedule.at}`;
  const name = schedule.name.replace(/\p{Cc}/gu, ' ');
  const fields = [
    schedule.id,
    name,
    when,
    `next ${schedule.nextAt ?? '-'}`,
    `last ${schedule.lastFiredAt ?? '-'}`,
    `catch-up ${schedule.catchUp}`,
    schedule.createdBy,
  ];
  if (schedule.paused) fields.push('paused');
  return fields.join('\t');
}
