// Lint for the labextension's TypeScript (src/, tests included): ESLint's and typescript-eslint's
// recommended rules. Formatting is prettier's job (its settings are the "prettier" key of package.json), not ESLint's.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['lib/**', 'node_modules/**', '*.js', '*.mjs'] },
  { files: ['src/**/*.ts'], extends: [js.configs.recommended, ...tseslint.configs.recommended] }
);
