// ESLint (flat config) for the VS Code extension: `make lint` runs it (npx eslint in editors/vscode).
// The extension's TypeScript with typescript-eslint's recommended rules, type-aware; the build
// scripts, tests and the webview script with ESLint's recommended rules. media/graphview.js is
// the viewer's bundle, copied by the build (its source is editors/graphview): not linted here.
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

const node = {
  process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly',
  setTimeout: 'readonly', clearTimeout: 'readonly', setInterval: 'readonly', clearInterval: 'readonly',
  __dirname: 'readonly', require: 'readonly', module: 'writable', fetch: 'readonly',
};
const browser = {
  window: 'readonly', document: 'readonly', console: 'readonly', acquireVsCodeApi: 'readonly',
  setTimeout: 'readonly', clearTimeout: 'readonly',
};

export default tseslint.config(
  { ignores: ['out/**', 'bin/**', 'node_modules/**', 'media/graphview.js'] },
  {
    files: ['src/**/*.ts'],
    extends: [js.configs.recommended, ...tseslint.configs.recommendedTypeChecked],
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
  },
  {
    files: ['scripts/**/*.mjs', 'test/**/*.mjs', 'eslint.config.mjs'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'module', globals: node },
  },
  {
    // The end-to-end test's page.evaluate callbacks run in the browser.
    files: ['test/e2e.mjs'],
    languageOptions: { globals: { ...browser, requestAnimationFrame: 'readonly', MutationObserver: 'readonly' } },
  },
  {
    files: ['media/panel.js'],
    extends: [js.configs.recommended],
    languageOptions: { sourceType: 'script', globals: browser },
  },
);
