/** Damages a stopped LevelDB directory the ways disks and people do: a table file deleted or truncated, MANIFEST or CURRENT mangled or gone. */
import { readdir, readFile, rm, stat, truncate, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { vigilDbLocation } from '../../src/subsystems/store/vigil-db.js';

/** One way to damage a data dir, and what it did (the file it hit). */
export interface LevelDbDamage {
  kind: string;
  apply: (dataDir: string) => Promise<string>;
}

/** The LevelDB files of a data dir, by name. */
export async function levelDbFiles(dataDir: string): Promise<string[]> {
  return (await readdir(vigilDbLocation(dataDir))).sort();
}

async function oneFile(dataDir: string, test: (name: string) => boolean, what: string): Promise<string> {
  const found = (await levelDbFiles(dataDir)).filter(test);
  if (found.length === 0)
    throw new Error(`the data dir ${dataDir} has no ${what}: ${(await levelDbFiles(dataDir)).join(', ')}`);
  return join(vigilDbLocation(dataDir), found[0]!);
}

const isTable = (name: string): boolean => name.endsWith('.ldb') || name.endsWith('.sst');

/** The oldest table file: it holds what an earlier session wrote (later writes still sit in the log). */
export const tableFile = (dataDir: string): Promise<string> => oneFile(dataDir, isTable, 'table file (.ldb/.sst)');

export const LEVELDB_DAMAGES: LevelDbDamage[] = [
  {
    kind: 'a deleted table file',
    apply: async (dataDir) => {
      const file = await tableFile(dataDir);
      await rm(file);
      return file;
    },
  },
  {
    kind: 'a truncated table file',
    apply: async (dataDir) => {
      const file = await tableFile(dataDir);
      await truncate(file, Math.floor((await stat(file)).size / 2));
      return file;
    },
  },
  {
    kind: 'a garbled MANIFEST',
    apply: async (dataDir) => {
      const file = await oneFile(dataDir, (name) => name.startsWith('MANIFEST-'), 'MANIFEST');
      const bytes = await readFile(file);
      for (let i = 0; i < bytes.length; i += 1) bytes[i] = bytes[i]! ^ 0x55;
      await writeFile(file, bytes);
      return file;
    },
  },
  {
    kind: 'a garbled CURRENT',
    apply: async (dataDir) => {
      const file = join(vigilDbLocation(dataDir), 'CURRENT');
      await writeFile(file, 'MANIFEST-00000x');
      return file;
    },
  },
  {
    kind: 'a missing CURRENT',
    apply: async (dataDir) => {
      const file = join(vigilDbLocation(dataDir), 'CURRENT');
      await rm(file);
      return file;
    },
  },
];
