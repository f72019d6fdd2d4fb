/** `DATA_DIR/daemon.json`: where a running daemon listens, so `vigil … --data-dir D` finds it on any port (CONTRACT §2). */
import { z } from 'zod';
import { isoTime } from './iso-time.js';

/** The file's name inside the data dir. */
export const DAEMON_FILE_NAME = 'daemon.json';

/**
 * What the daemon writes once its gateway listens, and removes on a clean stop. Unknown fields are kept when read, so
 * an older client reads a newer daemon's file.
 */
export const DaemonFileSchema = z.looseObject({
  /** The gateway's URL as a client on this machine reaches it (`http://127.0.0.1:PORT`; a wildcard host made loopback). */
  url: z.url({ protocol: /^https?$/, error: 'expected an http(s) URL' }),
  /** The daemon's process id: a client trusts the file only while this process lives. */
  pid: z.number().int().positive(),
  /** When the gateway began listening. */
  startedAt: isoTime,
});
export type DaemonFile = z.infer<typeof DaemonFileSchema>;
