// The linter `npm test` runs (`npm run lint`): eslint's and typescript-eslint's recommended rules.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['node_modules/', 'dist/', 'data/', 'coverage/', 'bench/results/', 'test-output/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
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
    files: ['test/**', '**/*.test.ts', 'shared/domain/catalog/test-fixture.ts'],
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
    files: ['read-api/console/assets/**/*.js', 'shared/adapters/http/reference/*.js'],
    languageOptions: { globals: globals.browser },
  },
);
