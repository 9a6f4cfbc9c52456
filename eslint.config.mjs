// The linter `npm test` runs (`npm run lint`): eslint's and typescript-eslint's recommended rules.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'coverage/', 'bench/results/', 'test-output/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  // Rules that read the types (typescript-eslint's type-checked ones worth their cost here): a
  // promise nobody awaits or passes where a callback's result is ignored, an await of a non-promise,
  // a throw of something that is not an Error, a type assertion that changes nothing, and type-only
  // imports said so.
  {
    files: ['**/*.ts'],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/only-throw-error': 'error',
      '@typescript-eslint/no-unnecessary-type-assertion': 'error',
      '@typescript-eslint/consistent-type-imports': 'error',
    },
  },
  {
    rules: {
      // A leading underscore names what is left unused on purpose (a rest sibling, a callback's argument).
      '@typescript-eslint/no-unused-vars': [
        'error',
        {
          argsIgnorePattern: '^_',
          varsIgnorePattern: '^_',
          destructuredArrayIgnorePattern: '^_',
          ignoreRestSiblings: true,
        },
      ],
    },
  },
  // Tests read response bodies and driver objects field by field.
  {
    files: ['test/**', '**/*.test.ts', 'domain/catalog/test-fixture.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  { files: ['**/*.js', '**/*.mjs', '**/*.cjs'], languageOptions: { globals: globals.node } },
  {
    files: ['bin/**/*.js', 'jest.config.js'],
    languageOptions: { sourceType: 'commonjs' },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  // Pages the service serves to browsers.
  {
    files: ['read-api/console/assets/**/*.js', 'read-api/kit/assets/*.js', 'shared/adapters/http/reference/*.js'],
    languageOptions: { globals: globals.browser },
  },
);
