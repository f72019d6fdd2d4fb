/** Loads and validates Vigil's configuration from the environment and `vigil run` flags (CONTRACT §2, §3). */
import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { z } from 'zod';
import { CONFIG_VARIABLES, VigilConfigSchema, type ConfigVariable, type VigilConfig } from './config.schema.js';
import { VigilError, describeError } from './errors.js';
import { nearestNames } from './shared/nearest-names.js';
import { secretEnvNames } from './protocol/channels.schema.js';
import { splitList } from './protocol/mcp-tool-names.js';

export {
  CONFIG_VARIABLES,
  DEFAULT_MODEL,
  LOG_LEVELS,
  MAX_TIMER_MS,
  ModelPriceSchema,
  THINKER_KINDS,
  VigilConfigSchema,
  isValidTimeZone,
} from './config.schema.js';
export type { ConfigValueKind, ConfigVariable, ModelPrice, VigilConfig } from './config.schema.js';

/** The flags of `vigil run` that override a variable. */
export type ConfigFlagName = 'dataDir' | 'host' | 'port' | 'thinker';
/** Flag values as typed on the command line. */
export type ConfigFlags = Partial<Record<ConfigFlagName, string>>;

/** One invalid variable, as carried in a CONFIG_INVALID error's `data`. */
export interface ConfigProblem {
  variable: string;
  flag?: string;
  /** The value as given (a string from env or flags; as passed for `configFromDefaults`); undefined when unset. */
  value: unknown;
  allowed: string;
}

/** Every variable's default as environment text (undefined: unset), for `.env.example` and docs/configuration.md. */
export const DEFAULT_CONFIG_ENV: Readonly<Record<string, string | undefined>> = Object.freeze(
  Object.fromEntries(CONFIG_VARIABLES.map((v) => [v.name, v.default])),
);

const FLAG_KEYS: Record<string, ConfigFlagName> = {
  '--data-dir': 'dataDir',
  '--host': 'host',
  '--port': 'port',
  '--thinker': 'thinker',
};
const TRUE_WORDS = new Set(['true', '1', 'yes']);
const FALSE_WORDS = new Set(['false', '0', 'no']);
// Plain decimals only: `1e3`, `0x10` or `Infinity` are more likely typos than intent.
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)$/;

/** A CONFIG_INVALID error about one variable, in the shape every such error has. */
function invalid(variable: string, value: unknown, allowed: string, cause?: unknown): VigilError {
  return new VigilError('CONFIG_INVALID', `${variable}=${JSON.stringify(value)} is invalid: ${allowed}.`, {
    cause,
    data: { variable, value, allowed, problems: [{ variable, value, allowed }] },
  });
}

/** The JSON a `jsonFile` variable names; a file that cannot be read or parsed is a configuration error naming both. */
function readJsonFile(variable: string, path: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    throw invalid(variable, path, `expected a readable JSON file (${describeError(err)})`, err);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (err) {
    throw invalid(variable, path, `expected the file to hold JSON (${describeError(err)})`, err);
  }
}

/** Reads an environment string as the kind of value the schema expects; unreadable text is passed on for the schema to reject. */
function readValue(variable: ConfigVariable, text: string): unknown {
  const t = text.trim();
  switch (variable.kind) {
    case 'number':
      return DECIMAL.test(t) ? Number(t) : t;
    case 'boolean': {
      const lower = t.toLowerCase();
      return TRUE_WORDS.has(lower) ? true : FALSE_WORDS.has(lower) ? false : t;
    }
    case 'json':
      try {
        return JSON.parse(t) as unknown;
      } catch {
        return t;
      }
    case 'jsonFile':
      return readJsonFile(variable.name, t);
    case 'list':
      return splitList(t);
    case 'string':
      return t;
  }
}

function variableFor(key: PropertyKey | undefined): ConfigVariable {
  const v = CONFIG_VARIABLES.find((c) => c.key === key);
  if (v === undefined)
    throw new VigilError('INTERNAL', `The configuration schema has a field ${String(key)} no variable maps to.`);
  return v;
}

/** Where an issue should point: its own variable, or the related one it names when only that one was given. */
function blame(
  issue: z.core.$ZodIssue,
  isGiven: (v: ConfigVariable) => boolean,
): { variable: ConfigVariable; message: string } {
  const variable = variableFor(issue.path[0]);
  const alternative: unknown = issue.code === 'custom' ? issue.params?.['alternative'] : undefined;
  if (alternative === undefined || isGiven(variable)) return { variable, message: issue.message };
  const alt = alternative as { key: keyof VigilConfig; message: string };
  const other = variableFor(alt.key);
  return isGiven(other) ? { variable: other, message: alt.message } : { variable, message: issue.message };
}

/** The value as an error may show it: a secret's length only, so a mistyped key never reaches a terminal or a log. */
function shownValue(v: ConfigVariable, value: unknown): unknown {
  if (v.secret !== true || value === undefined) return value;
  return `<hidden, ${(typeof value === 'string' ? value : JSON.stringify(value)).length} characters>`;
}

/** Turns schema issues into one CONFIG_INVALID error: one sentence per problem, each on its own line; `data` is the first problem plus `problems`. */
function configError(
  issues: readonly z.core.$ZodIssue[],
  isGiven: (v: ConfigVariable) => boolean,
  describe: (v: ConfigVariable) => Omit<ConfigProblem, 'allowed'> & { label: string },
): VigilError {
  const seen = new Set<string>();
  const problems: (ConfigProblem & { sentence: string })[] = [];
  for (const issue of issues) {
    const { variable, message } = blame(issue, isGiven);
    if (seen.has(variable.name)) continue; // one line per variable is enough to fix it
    seen.add(variable.name);
    const { label, ...where } = describe(variable);
    const inner = issue.path.slice(1).map(String).join('.');
    const allowed = inner === '' ? message : `${message} (problem at ${inner})`;
    const sentence =
      where.value === undefined
        ? `${label} is not set: ${allowed}.`
        : `${label}=${JSON.stringify(where.value)} is invalid: ${allowed}.`;
    problems.push({ ...where, allowed, sentence });
  }
  const list = problems.map(({ sentence: _s, ...p }) => p);
  return new VigilError('CONFIG_INVALID', problems.map((p) => p.sentence).join('\n'), {
    data: { ...list[0], problems: list },
  });
}

/**
 * Checks that the files and directories the configuration names exist: the identity file is readable, each MCP
 * server's `cwd` is a directory. Throws CONFIG_INVALID naming the variable (`mcpConfigPath`: the value to show for
 * VIGIL_MCP_CONFIG, its path when it came from a file).
 */
export function validateConfigFiles(config: VigilConfig, mcpConfigPath?: string): void {
  const path = config.identityFile;
  if (path !== undefined) {
    try {
      accessSync(path, constants.R_OK);
      if (!statSync(path).isFile()) throw new Error('it is not a regular file');
    } catch (err) {
      throw invalid('VIGIL_IDENTITY_FILE', path, `expected a readable file (${describeError(err)})`, err);
    }
  }
  for (const [name, entry] of Object.entries(config.mcp.mcpServers)) {
    if (!('command' in entry) || entry.cwd === undefined) continue;
    let isDirectory = false;
    try {
      isDirectory = statSync(entry.cwd).isDirectory();
    } catch {
      // A missing path is reported below like a file that is not a directory.
    }
    if (!isDirectory) {
      const allowed = `expected "cwd" to be an existing directory, not ${JSON.stringify(entry.cwd)} (problem at mcpServers.${name}.cwd)`;
      throw invalid('VIGIL_MCP_CONFIG', mcpConfigPath ?? '<given in code>', allowed);
    }
  }
}

/**
 * The configuration from `env` with `flags` overriding it; empty strings count as unset. Validates every value and
 * the identity file's readability (via `validateConfigFiles`); throws CONFIG_INVALID listing every invalid variable.
 */
export function loadConfig(env: Record<string, string | undefined>, flags: ConfigFlags = {}): VigilConfig {
  const given = (v: ConfigVariable): { text: string | undefined; fromFlag: boolean } => {
    const flagKey = v.flag === undefined ? undefined : FLAG_KEYS[v.flag];
    const flagText = flagKey === undefined ? undefined : flags[flagKey];
    if (flagText !== undefined && flagText.trim() !== '') return { text: flagText, fromFlag: true };
    const envText = env[v.name];
    return { text: envText !== undefined && envText.trim() !== '' ? envText : undefined, fromFlag: false };
  };
  const raw: Record<string, unknown> = {};
  for (const v of CONFIG_VARIABLES) {
    const text = given(v).text ?? v.default;
    if (text !== undefined) raw[v.key] = readValue(v, text);
    else if (v.unsetValue !== undefined) raw[v.key] = v.unsetValue;
  }
  const parsed = VigilConfigSchema.safeParse(raw);
  if (!parsed.success) {
    throw configError(
      parsed.error.issues,
      (v) => given(v).text !== undefined,
      (v) => {
        const { text, fromFlag } = given(v);
        const label = fromFlag && v.flag !== undefined ? `${v.flag} (${v.name})` : v.name;
        return {
          label,
          variable: v.name,
          ...(fromFlag ? { flag: v.flag } : {}),
          value: shownValue(v, text ?? v.default),
        };
      },
    );
  }
  validateConfigFiles(parsed.data, given(variableFor('mcp')).text);
  validateChannelSecrets(parsed.data, env);
  return parsed.data;
}

/** Every variable a channel entry names for its secrets is set (the file holds only their names). */
function validateChannelSecrets(config: VigilConfig, env: Record<string, string | undefined>): void {
  for (const [name, entry] of Object.entries(config.channels.channels)) {
    for (const variable of secretEnvNames(entry)) {
      if ((env[variable] ?? '').trim() !== '') continue;
      throw invalid(
        variable,
        '',
        `expected it to be set: VIGIL_CHANNELS_CONFIG's channel "${name}" (${entry.type}) names it for its secret`,
      );
    }
  }
}

const DEFAULT_CONFIG: VigilConfig = loadConfig({});

/** The default configuration with `overrides` applied and validated (undefined entries are ignored); no files are checked. */
export function configFromDefaults(overrides: Partial<VigilConfig> = {}): VigilConfig {
  const defined = Object.fromEntries(Object.entries(overrides).filter(([, value]) => value !== undefined));
  const parsed = VigilConfigSchema.safeParse({ ...DEFAULT_CONFIG, ...defined });
  if (parsed.success) return parsed.data;
  throw configError(
    parsed.error.issues,
    (v) => defined[v.key] !== undefined,
    (v) => ({
      label: `${v.key} (${v.name})`,
      variable: v.name,
      value: shownValue(v, (overrides as Record<string, unknown>)[v.key] ?? DEFAULT_CONFIG[v.key]),
    }),
  );
}

/** The text of `.env.example`: every variable with its default (commented out when it has none) and a one-line comment. */
export function renderEnvExample(): string {
  const header = [
    '# Vigil configuration (docs/configuration.md): every variable with its default.',
    '# Set them in the environment of `vigil run`; an unset or empty variable takes the default.',
    '# Generated from src/config.schema.ts by renderEnvExample(); test/config.test.ts keeps it in sync.',
  ];
  const blocks = CONFIG_VARIABLES.map((v) => {
    const flag = v.flag === undefined ? '' : ` Flag: ${v.flag}.`;
    const line = v.default === undefined ? `# ${v.name}=` : `${v.name}=${v.default}`;
    return `# ${v.description}${flag}\n${line}`;
  });
  return `${header.join('\n')}\n\n${blocks.join('\n\n')}\n`;
}

const VIGIL_PREFIX = 'VIGIL_';

/** A `VIGIL_*` variable in the environment that no setting reads, with the known name nearest it (if any is near). */
export interface UnknownVariable {
  name: string;
  suggestion: string | undefined;
}

/**
 * The `VIGIL_*` variables in `env` that Vigil does not read (a typo such as `VIGIL_BEAT_MSS` would otherwise be
 * silently ignored), each with the nearest known variable. Pure; the daemon logs them at warn.
 */
export function unknownVariables(env: Record<string, string | undefined>): UnknownVariable[] {
  const known = CONFIG_VARIABLES.map((v) => v.name).filter((name) => name.startsWith(VIGIL_PREFIX));
  // Compared without the prefix every name shares, which would make unrelated short names look near.
  const knownTails = known.map((name) => name.slice(VIGIL_PREFIX.length));
  return Object.keys(env)
    .filter((name) => name.startsWith(VIGIL_PREFIX) && env[name] !== undefined && !known.includes(name))
    .sort()
    .map((name) => {
      const tail = nearestNames(name.slice(VIGIL_PREFIX.length), knownTails, { limit: 1 })[0];
      return { name, suggestion: tail === undefined ? undefined : `${VIGIL_PREFIX}${tail}` };
    });
}

/** What `vigil run` was asked for: config flags and whether to repair the store first. */
export interface RunArgs {
  flags: ConfigFlags;
  repair: boolean;
}

/** The usage line of `vigil run`. */
export const RUN_USAGE =
  'usage: vigil run [--data-dir D] [--host H] [--port P] [--thinker offline|anthropic|openai] [--repair]';

/** Parses the arguments after `vigil run`; throws CLI_USAGE on an unknown flag, a missing or empty value, or a positional. */
export function parseRunArgs(argv: string[]): RunArgs {
  let values: Record<string, string | boolean | undefined>;
  try {
    ({ values } = parseArgs({
      args: argv,
      strict: true,
      allowPositionals: false,
      options: {
        'data-dir': { type: 'string' },
        host: { type: 'string' },
        port: { type: 'string' },
        thinker: { type: 'string' },
        repair: { type: 'boolean' },
      },
    }));
  } catch (err) {
    throw new VigilError('CLI_USAGE', `${describeError(err)}\n${RUN_USAGE}`, { cause: err, data: { argv } });
  }
  const flags: ConfigFlags = {};
  for (const [flag, key] of Object.entries(FLAG_KEYS)) {
    const value = values[flag.slice(2)];
    if (typeof value !== 'string') continue;
    if (value.trim() === '')
      throw new VigilError('CLI_USAGE', `Option '${flag}' needs a non-empty value.\n${RUN_USAGE}`, { data: { argv } });
    flags[key] = value;
  }
  return { flags, repair: values['repair'] === true };
}
