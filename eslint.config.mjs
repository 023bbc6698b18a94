// ESLint: TypeScript rules everywhere, plus the house rule that the pure core and the store
// never touch vscode or the file system (adapters live in src/node and src/vscode).
import js from '@eslint/js';
import tseslint from 'typescript-eslint';
import globals from 'globals';

const forbidden = ['vscode', 'fs', 'fs/promises', 'node:fs', 'node:fs/promises', 'child_process', 'node:child_process'].map((name) => ({
  name,
  message: 'src/core, src/store and src/service are pure: put I/O behind a port (src/store/ports.ts) and implement it in src/node or src/vscode.',
}));

export default tseslint.config(
  { ignores: ['dist/**', 'out/**', 'node_modules/**', '.tools/**', '.scratch/**', 'bench/corpus/**', 'test/helpers/*.cjs', 'packages/*/dist/**'] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ['**/*.mjs', '**/*.cjs', '**/*.js'],
    languageOptions: { globals: { ...globals.node, ...globals.mocha } },
  },
  {
    // The demo's sample agent is a plain CommonJS extension (no build step).
    files: ['demo/**/*.js', 'test/e2e/command-caller/*.js', 'test/e2e/chat-driver/*.js', 'test/e2e/hook-driver/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { ...globals.node } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
  {
    // UI tests hand functions to the browser (page.evaluate, addInitScript): browser globals there.
    files: ['test/e2e/**/*.mjs', 'test/harness/workbench.mjs'],
    languageOptions: { globals: { ...globals.node, ...globals.mocha, ...globals.browser } },
  },
  {
    // The tools serve VS Code, the MCP server and the CLI alike: no vscode there either.
    files: ['src/tools/**/*.ts', 'src/cli/**/*.ts', 'src/node/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: [{ name: 'vscode', message: 'only src/vscode imports vscode: put the VS Code part behind an interface the face implements.' }] }],
    },
  },
  {
    rules: {
      '@typescript-eslint/no-unused-vars': ['error', { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_' }],
      '@typescript-eslint/no-explicit-any': 'error',
    },
  },
  {
    files: ['src/core/**/*.ts', 'src/store/**/*.ts', 'src/service/**/*.ts'],
    rules: {
      'no-restricted-imports': ['error', { paths: forbidden, patterns: [{ group: ['node:*'], message: 'src/core, src/store and src/service use no Node modules: add a port.' }] }],
      'no-restricted-globals': ['error', { name: 'process', message: 'pass configuration in; the core has no process' }, { name: 'require', message: 'import instead' }],
    },
  },
);
