// Bundles src/ into graphview.js (one IIFE, global `CcdagGraph`, cytoscape + dagre inside), written
// to internal/graphhtml/assets/: the Go binary embeds it from there (go:embed cannot reach outside its
// package) and the VS Code build copies it from there. The viewer's stylesheet is not in the bundle:
// its one copy is internal/graphhtml/assets/graphview.css (source and shipped file at once), which
// the HTML page inlines and the VS Code webview links.
//   node build.mjs          build and write
//   node build.mjs --check  build in memory; exit 1 if a committed file differs
import * as esbuild from 'esbuild';
import { readFileSync, writeFileSync, mkdirSync, existsSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const repo = join(here, '..', '..');
const check = process.argv.includes('--check');

// MIT asks for the copyright notices to travel with the code: put the bundled packages'
// licenses at the end of the bundle.
const license = (pkg) => readFileSync(join(here, 'node_modules', pkg, 'LICENSE'), 'utf8').trim();
const footer = [
  '/*! Licenses of the code bundled above.',
  '',
  '--- cytoscape (https://js.cytoscape.org) ---',
  license('cytoscape'),
  '',
  '--- @dagrejs/dagre (https://github.com/dagrejs/dagre) ---',
  license('@dagrejs/dagre'),
  '',
  '--- @dagrejs/graphlib (https://github.com/dagrejs/graphlib) ---',
  license('@dagrejs/graphlib'),
  '*/',
]
  .join('\n')
  .replace(/\*\/(?!$)/g, '* /');

const result = await esbuild.build({
  entryPoints: [join(here, 'src', 'index.ts')],
  bundle: true,
  format: 'iife',
  globalName: 'CcdagGraph',
  platform: 'browser',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  minify: !process.env.GV_NOMINIFY, // GV_NOMINIFY=1: readable names for test/profile.mjs (never committed: --check fails)
  legalComments: 'eof',
  charset: 'utf8',
  banner: { js: '/* ccdag graphview: built by `npm run build` in editors/graphview from src/ (do not edit). Bundles cytoscape and @dagrejs/dagre (MIT). */' },
  footer: { js: footer },
  write: false,
  logLevel: 'warning',
});

const js = result.outputFiles[0].text;
if (/<\/script/i.test(js) || /<!--/.test(js)) {
  console.error('bundle contains "</script" or "<!--": it could not be inlined in an HTML page');
  process.exit(1);
}
const outputs = [
  [join(repo, 'internal', 'graphhtml', 'assets', 'graphview.js'), js],
];

let stale = 0;
for (const [file, text] of outputs) {
  const rel = relative(repo, file);
  if (check) {
    const cur = existsSync(file) ? readFileSync(file, 'utf8') : null;
    if (cur !== text) {
      console.error(`stale: ${rel} differs from a fresh build (run npm run build in editors/graphview)`);
      stale++;
    }
  } else {
    mkdirSync(dirname(file), { recursive: true });
    writeFileSync(file, text);
    console.log(`wrote ${rel} (${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB)`);
  }
}
if (check) {
  if (stale) process.exit(1);
  console.log('internal/graphhtml/assets/ matches a fresh build');
}
