/** The gateway token: `VIGIL_TOKEN` when set, else one generated once into `DATA_DIR/token` (mode 0600) and reused. */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { VigilError, describeError } from '../errors.js';
import { isLoopbackHost } from './loopback.js';
import { PRIVATE_DIR_MODE, PRIVATE_FILE_MODE } from './private-files.js';

/** The token file's name inside the data dir. */
export const TOKEN_FILE_NAME = 'token';

/** Where the token file of `dataDir` lives. */
export function tokenFilePath(dataDir: string): string {
  return join(dataDir, TOKEN_FILE_NAME);
}

/** A fresh random token (256 bits, base64url). */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}

/**
 * Refuses a gateway reachable from other machines without a token the operator chose: a generated one would sit in
 * a file nobody knows to protect. Throws CONFIG_INVALID naming VIGIL_TOKEN (exit 2).
 */
export function assertTokenPolicy(config: { host: string; token?: string | undefined }): void {
  if (config.token !== undefined || isLoopbackHost(config.host)) return;
  const allowed = `set explicitly when VIGIL_HOST is not a loopback address (VIGIL_HOST="${config.host}")`;
  throw new VigilError(
    'CONFIG_INVALID',
    `VIGIL_TOKEN is not set: expected a token ${allowed}; a generated token is only used on loopback hosts.`,
    {
      data: {
        variable: 'VIGIL_TOKEN',
        value: undefined,
        allowed,
        problems: [{ variable: 'VIGIL_TOKEN', value: undefined, allowed }],
      },
    },
  );
}

/** The token in `dataDir`'s token file, or undefined when there is none. */
export async function readTokenFile(dataDir: string): Promise<string | undefined> {
  try {
    const text = (await readFile(tokenFilePath(dataDir), 'utf8')).trim();
    return text === '' ? undefined : text;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new VigilError(
      'STORE_IO',
      `The token file ${tokenFilePath(dataDir)} could not be read: ${describeError(err)}.`,
      { cause: err },
    );
  }
}

/**
 * The data dir's token, created with mode 0600 on first use. A file opened to others is not changed here: the daemon
 * tightens it at boot, before it reads it (data-dir-exposure.ts).
 */
export async function ensureTokenFile(
  dataDir: string,
  retry = true,
): Promise<{ token: string; path: string; created: boolean }> {
  const path = tokenFilePath(dataDir);
  try {
    await mkdir(dataDir, { recursive: true, mode: PRIVATE_DIR_MODE });
    const existing = await readTokenFile(dataDir);
    if (existing !== undefined) return { token: existing, path, created: false };
    const token = generateToken();
    // `wx`: never overwrite a token another process wrote a moment ago; the mode applies at creation.
    await writeFile(path, `${token}\n`, { mode: PRIVATE_FILE_MODE, flag: 'wx' });
    return { token, path, created: true };
  } catch (err) {
    // Another process created it between our read and write: read theirs (once; an empty file is then replaced).
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') {
      if (retry) return ensureTokenFile(dataDir, false);
      const token = generateToken();
      await writeFile(path, `${token}\n`, { mode: PRIVATE_FILE_MODE });
      await chmod(path, PRIVATE_FILE_MODE);
      return { token, path, created: true };
    }
    if (err instanceof VigilError) throw err;
    throw new VigilError('STORE_IO', `The token file ${path} could not be created: ${describeError(err)}.`, {
      cause: err,
    });
  }
}
