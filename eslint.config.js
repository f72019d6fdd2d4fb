// `npm run lint`: ESLint's and typescript-eslint's type-aware recommended rules, plus the promise, exhaustiveness and
// import-style rules a daemon whose correctness depends on which promises are awaited needs; any problem fails the run.
import js from '@eslint/js';
import { defineConfig, globalIgnores } from 'eslint/config';
import globals from 'globals';
import tseslint from 'typescript-eslint';
import eslintConfigPrettier from 'eslint-config-prettier/flat';

export default defineConfig(
  globalIgnores(['dist/', 'coverage/', 'data/', 'test-artifacts/', 'bench/_scratch/']),
  {
    // A disable that no longer suppresses anything is itself a problem: it would hide the next real one.
    linterOptions: { reportUnusedDisableDirectives: 'error' },
  },
  js.configs.recommended,
  tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        // Each file is typed by its nearest tsconfig: the root one, or the dashboard's for its browser modules (JSDoc,
        // checkJs). The few plain JS files no tsconfig includes (this file, bin/, scripts/, a bench's preload, test
        // fixtures run by Node as they are) get a default project with the root tsconfig's options, so their imports are
        // typed too.
        projectService: {
          allowDefaultProject: [
            '*.js',
            'bin/*.js',
            'scripts/*.mjs',
            'bench/*.mjs',
            'test/fixtures/*.mjs',
            'test/fixtures/*/*.mjs',
          ],
          defaultProject: 'tsconfig.json',
          // Nine such files today (the default allows eight); each is small, so the slower path costs little.
          maximumDefaultProjectFileMatchCount_THIS_WILL_SLOW_DOWN_LINTING: 16,
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // Every promise is awaited, returned, or handed to runDetached (src/shared/run-detached.ts), which logs a failure.
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      // `Promise.all(items.map((x) => (x.open ? x.close() : undefined)))` waits for those that have something to wait for.
      '@typescript-eslint/await-thenable': ['error', { allowMixedPromiseArrays: true }],
      // Passing on a caught or aborted reason (`reject(signal.reason)`) is relaying, not inventing a non-Error.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingAny: true, allowThrowingUnknown: true },
      ],
      // A switch with a `default` is exhaustive by choice (an event handler picks the few types it shows); one without
      // must name every member of the union, so a new event or state cannot slip past a transition function.
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      // Type-only imports say so (`import type`, or `type` inline beside values), and never leave an empty import behind.
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      '@typescript-eslint/no-import-type-side-effects': 'error',
      // `_name` is the house's way to drop a field from a copy (`const { secret: _secret, ...rest } = value`).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // `let x; … x = …` where a closure made before the assignment reads x (it cannot be a const declared later).
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Tests read JSON-RPC answers, Messages API request bodies and journal lines as `any` and assert on their shape:
    // typing each read would double the tests without making them check more. src/ keeps all of these rules.
    files: ['test/**'],
    rules: {
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      // Fakes implement promise-returning interfaces as `async` methods with nothing to wait for, so that a throw
      // reaches the caller as a rejection, as the real part's would.
      '@typescript-eslint/require-await': 'off',
    },
  },
  {
    files: ['bin/**', 'scripts/**', 'bench/*.mjs', 'test/fixtures/**/*.mjs', '*.js'],
    languageOptions: { globals: globals.node },
  },
  {
    files: ['src/gateway/dashboard/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
  // Layout is Prettier's (`prettier --check .` in `npm run lint`): no ESLint rule may argue with it.
  eslintConfigPrettier,
);
