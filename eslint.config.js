// ESLint: typescript-eslint's recommended rules over the service, jobs, tests and benchmarks. The layering
// (which folder may import which) is checked by dependency-cruiser (.dependency-cruiser.cjs); both run in
// `npm run lint`.
import js from '@eslint/js';
import globals from 'globals';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'node_modules/', '.tools/', 'data/', 'coverage/', 'sdk/typescript/dist/', 'sdk/typescript/build-test/', 'mcp/dist/', 'mcp/build-test/', 'examples/app/dist/', 'examples/app/build-test/'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.ts'],
    rules: {
      // `_name` marks a value that is destructured or received only to be left out.
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/consistent-type-imports': ['error', { fixStyle: 'inline-type-imports' }],
      eqeqeq: ['error', 'always'],
    },
  },
  {
    // Tests read JSON response bodies, which are `any` by nature.
    files: ['test/**/*.ts', '*/test/**/*.ts', 'examples/*/test/**/*.ts'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    files: ['**/*.{js,mjs,cjs}'],
    languageOptions: { globals: globals.node },
  },
  {
    // The reference application's page scripts run in the browser.
    files: ['examples/app/public/**/*.js'],
    languageOptions: { globals: globals.browser },
  },
  {
    files: ['**/*.cjs'],
    languageOptions: { sourceType: 'commonjs' },
  },
);
