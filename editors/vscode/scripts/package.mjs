// Builds the .vsix files: a production bundle (type-checked once), then `vsce package` for each
// target found in --bins (DIR/<target>/ccdag, or ccdag.exe for win32-*, each packaged with
// `--target <target>`, carrying its own binary and bin/TARGET naming it), then the universal one,
// which carries no binary and uses ccdag from PATH (or ccdag.server.path).
//   node scripts/package.mjs [--bins DIR] [--outdir DIR]     `make vsix`
// Output: OUTDIR/ccdag-<target>-<version>.vsix per target, OUTDIR/ccdag-<version>.vsix.
import { execFileSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

// The targets VS Code installs a platform-specific extension for, that ccdag is built for.
const TARGETS = ['linux-x64', 'linux-arm64', 'darwin-x64', 'darwin-arm64', 'win32-x64', 'win32-arm64'];

const root = fileURLToPath(new URL('..', import.meta.url));
const argv = process.argv.slice(2);
const opt = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const bins = opt('--bins') && resolve(opt('--bins'));
const outdir = resolve(opt('--outdir') ?? join(root, 'dist'));

// Type-check first: esbuild only strips the types.
execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', root], {
  stdio: 'inherit',
  cwd: root,
});
execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--production'], { stdio: 'inherit', cwd: root });
mkdirSync(outdir, { recursive: true });

const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
const bin = join(root, 'bin');
function pack(target) {
  const out = join(outdir, `${pkg.name}-${target ? target + '-' : ''}${pkg.version}.vsix`);
  const args = ['package', '--no-dependencies', '--out', out];
  if (target) args.push('--target', target);
  execFileSync(process.execPath, [vsce, ...args], { stdio: 'inherit', cwd: root });
  console.log(`${out}${target ? ` (with the ${target} ccdag server)` : ' (universal: no server inside, uses ccdag from PATH)'}`);
}

const found = bins ? readdirSync(bins).filter((t) => TARGETS.includes(t)).sort() : [];
if (bins && found.length === 0) {
  console.error(`error: ${bins} holds no <target>/ccdag (targets: ${TARGETS.join(', ')})`);
  process.exit(1);
}
try {
  for (const target of found) {
    const exe = target.startsWith('win32-') ? 'ccdag.exe' : 'ccdag';
    const src = join(bins, target, exe);
    if (!existsSync(src)) {
      console.error(`error: ${src} is missing`);
      process.exit(1);
    }
    rmSync(bin, { recursive: true, force: true });
    mkdirSync(bin);
    copyFileSync(src, join(bin, exe));
    writeFileSync(join(bin, 'TARGET'), target + '\n');
    pack(target);
  }
} finally {
  rmSync(bin, { recursive: true, force: true }); // the universal package carries no server
}
pack(undefined);
