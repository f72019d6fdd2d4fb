/**
 * Where the channel of `vigil mcp` keeps the seq of the last event it pushed: `DATA_DIR/mcp-channel.json`, one cursor
 * per token name (two hosts relaying with different tokens each get every event once), written atomically with mode
 * 0600 after each push. The daemon may be remote, so this file is the client's, beside its token file.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { z } from 'zod';
import { SeqSchema } from '../../protocol/event-feed.schema.js';
import { writePrivateFile } from '../commands/private-file.js';

/** The file's name in the data dir. */
export const CHANNEL_CURSOR_FILE = 'mcp-channel.json';

/** The file: the last seq pushed, by token name. */
export const ChannelCursorFileSchema = z.object({ cursors: z.record(z.string(), SeqSchema) });
export type ChannelCursorFile = z.infer<typeof ChannelCursorFileSchema>;

/** One token's cursor. */
export interface ChannelCursor {
  /** The last seq pushed, or undefined when none was ever kept (or the file is unreadable: the channel starts anew). */
  read(): Promise<number | undefined>;
  write(seq: number): Promise<void>;
}

/** The cursor of token `tokenName` in `dataDir`'s file. */
export function fileChannelCursor(dataDir: string, tokenName: string): ChannelCursor {
  const path = join(dataDir, CHANNEL_CURSOR_FILE);
  return {
    read: async () => (await readCursors(path)).cursors[tokenName],
    write: async (seq) => {
      // Read again before each write: another `vigil mcp` with another token may have written its own since.
      const file = await readCursors(path);
      await writePrivateFile(path, `${JSON.stringify({ cursors: { ...file.cursors, [tokenName]: seq } }, null, 2)}\n`);
    },
  };
}

async function readCursors(path: string): Promise<ChannelCursorFile> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { cursors: {} };
    throw err;
  }
  try {
    return ChannelCursorFileSchema.parse(JSON.parse(text));
  } catch {
    // A damaged file is replaced at the next push: its cursors are lost, so each channel starts from then on.
    return { cursors: {} };
  }
}
