// Bundles the extension with esbuild (out/extension.js) and copies the shared graph viewer
// (internal/graphhtml/assets/graphview.js, built by editors/graphview, and its stylesheet
// graphview.css) into media/.
//   node scripts/build.mjs               development build (source maps)
//   node scripts/build.mjs --production  minified, what `make vsix` packages
//   node scripts/build.mjs --watch
import * as esbuild from 'esbuild';
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const production = process.argv.includes('--production');
const watch = process.argv.includes('--watch');

const assets = join(root, '..', '..', 'internal', 'graphhtml', 'assets');
const viewerSrc = join(assets, 'graphview.js');
if (existsSync(viewerSrc)) {
  for (const name of ['graphview.js', 'graphview.css']) {
    const src = join(assets, name);
    const dst = join(root, 'media', name);
    mkdirSync(dirname(dst), { recursive: true });
    copyFileSync(src, dst);
    console.log(`copied ${relative(process.cwd(), src)} -> ${relative(process.cwd(), dst)}`);
  }
} else if (production) {
  console.error(`error: ${viewerSrc} is missing: build the graph viewer first (editors/graphview: npm run build)`);
  process.exit(1);
} else {
  console.warn(`warning: ${viewerSrc} is missing; the workflow graph panel will say so`);
}

const options = {
  entryPoints: [join(root, 'src', 'extension.ts')],
  outfile: join(root, 'out', 'extension.js'),
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node18',
  external: ['vscode'],
  minify: production,
  sourcemap: production ? false : 'linked',
  legalComments: production ? 'none' : 'inline',
  logLevel: 'info',
};

if (watch) {
  const ctx = await esbuild.context(options);
  await ctx.watch();
} else {
  await esbuild.build(options);
}
