// Type-checked lint for the TypeScript sources, tests and benchmarks (`pnpm lint`, run by
// scripts/test.sh). Formatting is Biome's (biome.json); this file holds only correctness rules.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['**/dist/**', '**/node_modules/**', 'libs/contracts/src/gen/**', '**/*.mjs', '**/*.js'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: {
        project: ['./tsconfig.lint.json', './services/rest-api/ui/tsconfig.json'],
        tsconfigRootDir: import.meta.dirname,
      },
    },
  },
);
