// Type-checked lint for the TypeScript sources, tests and benchmarks (`pnpm lint`, run by
// scripts/test.sh). Formatting is Biome's (biome.json); this file holds only correctness rules:
// typescript-eslint's recommended type-checked set, which has what an engine of many async
// processes needs most (no-floating-promises, no-misused-promises, await-thenable, the no-unsafe-*
// family), with two changes said below.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  // examples/plugins holds projects outside the workspace: test/plugins builds and type-checks
  // them against the packed @tideway/api, as their authors would.
  {
    ignores: [
      '**/dist/**',
      '**/node_modules/**',
      'libs/contracts/src/gen/**',
      'libs/connectors/file-common/src/gen/**',
      '**/*.mjs',
      '**/*.js',
      'examples/plugins/**',
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.lint.json', './services/rest-api/ui/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
    rules: {
      // An `async` method without `await` is written on purpose: it implements a Promise-returning
      // interface, and a throw inside it becomes a rejection the caller handles, not a synchronous
      // exception the caller does not expect.
      '@typescript-eslint/require-await': 'off',
      // `_name` marks a parameter or binding kept for its position (callbacks, destructuring).
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrors: 'none' }],
      // `void promise` does not handle a rejection, it only hides it: every promise is awaited, or
      // detached through a helper that handles its error (detach() of @tideway/common).
      '@typescript-eslint/no-floating-promises': ['error', { ignoreVoid: false }],
    },
  },
);
