/** `vigil checkpoints list|create|show ID|restore ID --yes|export ID FILE|import FILE`: shorthands for the checkpoint methods. */
import { MAX_FRAME_BYTES } from '../../protocol/limits.js';
import { summariseIssues } from '../../protocol/zod-issues.js';
import { CheckpointExportSchema } from '../../protocol/checkpoint-transfer.schema.js';
import { RpcError } from '../rpc-error.js';
import type { VigilClient } from '../vigil-client.js';
import { UsageError, type CliIo } from './cli-io.js';
import { parseClientArgs, type ClientArgs } from './client-args.js';
import { printJson, runClientCommand } from './run-client-command.js';

/** The usage lines. */
export const CHECKPOINTS_USAGE = `usage: vigil checkpoints list [--limit N]
       vigil checkpoints create
       vigil checkpoints show ID
       vigil checkpoints restore ID --yes
       vigil checkpoints export ID FILE
       vigil checkpoints import FILE
  each takes [--url URL] [--token TOKEN] [--data-dir D]`;

const ARITY: Record<string, number> = { list: 0, create: 0, show: 1, restore: 1, export: 2, import: 1 };

/** Runs `vigil checkpoints …`. */
export function checkpointsCommand(argv: string[], io: CliIo): Promise<number> {
  let document: unknown;
  return runClientCommand(
    io,
    CHECKPOINTS_USAGE,
    () => {
      const args = parseClientArgs(argv, { yes: { type: 'boolean' }, limit: { type: 'string' } });
      const [sub, ...rest] = args.positionals;
      if (sub === undefined || ARITY[sub] === undefined) {
        throw new UsageError(
          sub === undefined ? 'checkpoints needs a subcommand.' : `unknown checkpoints subcommand "${sub}".`,
        );
      }
      if (rest.length !== ARITY[sub])
        throw new UsageError(`checkpoints ${sub} takes ${ARITY[sub]} argument(s), got ${rest.length}.`);
      const limit = args.flags['limit'];
      if (limit !== undefined && !/^[1-9]\d*$/.test(String(limit)))
        throw new UsageError(`--limit must be a positive integer, not ${JSON.stringify(limit)}.`);
      return args;
    },
    async (client, args) => {
      const [sub, first, second] = args.positionals as [string, string, string];
      switch (sub) {
        case 'list':
          printJson(
            io,
            await client.checkpoint.list(
              args.flags['limit'] === undefined ? {} : { limit: Number(args.flags['limit']) },
            ),
          );
          return 0;
        case 'create':
          printJson(io, await client.checkpoint.create());
          return 0;
        case 'show':
          printJson(io, await client.checkpoint.get({ id: first }));
          return 0;
        case 'restore':
          return restore(client, io, first, args);
        case 'export':
          return exportTo(client, io, first, second);
        default:
          document = await readDocument(io, first);
          return importFrom(client, io, document);
      }
    },
    // Its answers are JSON: so are its errors, each followed by the line that says what to do.
    { rawErrors: true },
  );
}

async function restore(client: VigilClient, io: CliIo, id: string, args: ClientArgs): Promise<number> {
  try {
    printJson(io, await client.checkpoint.restore({ id, ...(args.flags['yes'] === true ? { confirm: true } : {}) }));
    return 0;
  } catch (err) {
    if (err instanceof RpcError && err.code === -32001) {
      io.stderr(
        `${JSON.stringify(err.toJSON())}\nvigil: restoring replaces the running agent; run again with --yes to confirm.\n`,
      );
      return 1;
    }
    throw err;
  }
}

async function exportTo(client: VigilClient, io: CliIo, id: string, file: string): Promise<number> {
  const exported = await client.checkpoint.export({ id });
  const text = `${JSON.stringify(exported, null, 2)}\n`;
  try {
    await io.writeFile(file, text);
  } catch (err) {
    io.stderr(`vigil: ${exportWriteFailure(file, err)}\n`);
    return 1;
  }
  printJson(io, {
    exported: id,
    file,
    beatCount: exported.checkpoint.beatCount,
    messages: exported.messages.length,
    bytes: Buffer.byteLength(text),
  });
  return 0;
}

// Why an export could not be written, by the file system's code, and what to do; else its own message.
const WRITE_FAILURES: Readonly<Record<string, string>> = {
  ENOSPC: 'no space left on the device: free some space, or give a FILE on another disk',
  EDQUOT: 'the disk quota is used up: free some space, or give a FILE on another disk',
  EACCES: 'permission denied: give a FILE in a directory this user may write',
  EPERM: 'operation not permitted: give a FILE in a directory this user may write',
  EROFS: 'the file system is read-only: give a FILE on a writable one',
  ENOENT: 'its directory does not exist: create it, or give another FILE',
  ENOTDIR: 'a part of its path is a file, not a directory: give another FILE',
  EISDIR: 'it is a directory: give a file name (e.g. DIR/export.json)',
  ESYMLINK: 'it is a symlink to a device or pipe, which an export never writes through: give a file name',
};

/** The sentence for a failed export write (the checkpoint itself is untouched: only the file is missing). */
export function exportWriteFailure(file: string, err: unknown): string {
  const code = (err as NodeJS.ErrnoException | undefined)?.code;
  const why =
    code !== undefined && WRITE_FAILURES[code] !== undefined
      ? `${WRITE_FAILURES[code]} (${code})`
      : ((err as Error | undefined)?.message ?? String(err));
  return `cannot write the export to ${file}: ${why}.`;
}

// The file is checked here first, so a wrong file is a usage error (2) naming what is wrong, before any call.
async function readDocument(io: CliIo, file: string): Promise<unknown> {
  let text: string;
  try {
    text = await io.readFile(file);
  } catch (err) {
    throw new UsageError(`cannot read ${file}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`${file} is not JSON (${(err as Error).message}).`);
  }
  const parsed = CheckpointExportSchema.safeParse(raw);
  if (!parsed.success)
    throw new UsageError(`${file} is not a Vigil checkpoint export: ${summariseIssues(parsed.error)}.`);
  return raw;
}

async function importFrom(client: VigilClient, io: CliIo, document: unknown): Promise<number> {
  const bytes = Buffer.byteLength(JSON.stringify(document));
  if (bytes > MAX_FRAME_BYTES - 1024) {
    io.stderr(
      `vigil: the export is ${bytes} bytes; one gateway frame holds at most ${MAX_FRAME_BYTES} (CONTRACT §4), so it cannot be imported over the gateway.\n`,
    );
    return 1;
  }
  const imported = await client.checkpoint.import({ document: document as never });
  printJson(io, imported);
  io.stderr(`vigil: imported as ${imported.id}; run "vigil checkpoints restore ${imported.id} --yes" to run it.\n`);
  return 0;
}
