// Builds the .vsix: a production bundle, then `vsce package`. When bin/ccdag is present (`make vsix`
// puts a linux-x64 build there), the package is the linux-x64 platform-specific one and carries it.
//   node scripts/package.mjs [-o OUT.vsix]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const oi = argv.findIndex((a) => a === '-o' || a === '--out');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const withServer = existsSync(join(root, 'bin', 'ccdag'));
const out = resolve(
  oi >= 0 ? argv[oi + 1] : join(root, `${pkg.name}-${withServer ? 'linux-x64-' : ''}${pkg.version}.vsix`),
);

// Type-check first: esbuild only strips the types.
execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', root], {
  stdio: 'inherit',
  cwd: root,
});
execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--production'], { stdio: 'inherit', cwd: root });
mkdirSync(dirname(out), { recursive: true });
const vsce = join(root, 'node_modules', '@vscode', 'vsce', 'vsce');
const args = ['package', '--no-dependencies', '--out', out];
if (withServer) args.push('--target', 'linux-x64');
execFileSync(process.execPath, [vsce, ...args], { stdio: 'inherit', cwd: root });
console.log(`${out}${withServer ? ' (with the linux-x64 ccdag server)' : ' (no server inside: uses ccdag.server.path or PATH)'}`);
