/** The running Vigil's version, read once from package.json. */
import { readFileSync } from 'node:fs';

const packageJson = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

/** `version` from package.json. */
export const VIGIL_VERSION: string = packageJson.version;
