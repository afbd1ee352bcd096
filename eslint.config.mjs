// Lint: typescript-eslint's recommended rules over every TypeScript file of ours (generated files are
// checked by their staleness tests, not here). Formatting is Prettier's (.prettierrc.json).
import tseslint from 'typescript-eslint';

export default tseslint.config(
  {
    ignores: [
      'node_modules/',
      'dist/',
      'data/',
      'console/dist/',
      'src/db/generated/',
      'rest/generated/',
      'protocols/generated/',
      'console/src/gql/',
      'test/api/openapi-client/flows.ts',
    ],
  },
  ...tseslint.configs.recommended,
  {
    rules: {
      // A leading underscore names what is taken and left unused on purpose (a parameter a signature requires).
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', caughtErrorsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' },
      ],
      // Packages a start does not need are required on first use (onFirstUse(() => require(…))): docs/operations.md#start.
      '@typescript-eslint/no-require-imports': 'off',
      // A `let` read by a closure made before its one assignment (a fixture that refers to itself) stays a `let`.
      'prefer-const': ['error', { ignoreReadBeforeAssign: true }],
    },
  },
  {
    // Pothos' field builders are typed per object type; a helper adding the same fields to several takes them untyped.
    files: ['schema/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
  {
    // Tests read JSON answers whose shape is what they assert.
    files: ['test/**', 'bench/**', 'soak/**'],
    rules: { '@typescript-eslint/no-explicit-any': 'off' },
  },
);
