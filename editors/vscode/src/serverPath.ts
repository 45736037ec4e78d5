// What a configured ccdag.server.path names, without VS Code: pure functions of the setting and
// the workspace folders, so that test/serverPath.test.mjs runs them in plain node.

import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

/** The setting as a path: `${workspaceFolder}` and `~` expanded, relative to the first folder. */
export function expandPath(raw: string, folders: readonly string[]): string {
  let p = raw.trim();
  const folder = folders[0];
  if (folder) p = p.replace(/\$\{workspaceFolder\}/g, folder);
  if (p === '~' || p.startsWith('~/') || p.startsWith('~\\')) p = path.join(os.homedir(), p.slice(1));
  if (!path.isAbsolute(p) && folder) p = path.join(folder, p);
  return p;
}

/** p with its links resolved as far as it exists (a file not there yet: its folder's real path). */
function realPath(p: string): string {
  const rest: string[] = [];
  let cur = path.resolve(p);
  for (;;) {
    try {
      return path.join(fs.realpathSync.native(cur), ...rest);
    } catch {
      const parent = path.dirname(cur);
      if (parent === cur) return path.resolve(p);
      rest.unshift(path.basename(cur));
      cur = parent;
    }
  }
}

function inside(folder: string, p: string): boolean {
  const rel = path.relative(folder, p);
  return rel === '' || (rel !== '..' && !rel.startsWith('..' + path.sep) && !path.isAbsolute(rel));
}

/**
 * Whether a configured server path refers to the workspace: `${workspaceFolder}`, a relative path
 * (taken from the first workspace folder), or a path that ends up inside a workspace folder, links
 * resolved on both sides (a workspace opened through a link, or a link into it). In an untrusted
 * workspace such a path is not run, even from a machine-level setting: the workspace's files are
 * what Restricted Mode does not trust.
 */
export function refersToWorkspace(raw: string, folders: readonly string[]): boolean {
  const p = raw.trim();
  if (p.includes('${workspaceFolder')) return true;
  if (p !== '~' && !p.startsWith('~/') && !p.startsWith('~\\') && !path.isAbsolute(p)) return true;
  const expanded = expandPath(p, folders);
  const real = realPath(expanded);
  return folders.some((f) => inside(path.resolve(f), path.resolve(expanded)) || inside(realPath(f), real));
}

/** The executable's name on a platform (process.platform). */
export function exeName(platform: string): string {
  return platform === 'win32' ? 'ccdag.exe' : 'ccdag';
}

/**
 * The VS Code target (`vsce package --target`) a platform and architecture run: linux-x64,
 * win32-arm64, darwin-arm64...
 */
export function vsceTarget(platform: string, arch: string): string {
  return `${platform}-${arch}`;
}

/**
 * The path of the server shipped in the extension for this platform, or undefined. A per-target
 * .vsix (`make vsix`) carries bin/ccdag (bin/ccdag.exe for win32) and bin/TARGET naming the target
 * it was built for; the universal one carries neither and uses ccdag from PATH. A binary built for
 * another target (a .vsix installed by hand on the wrong machine) is not used. readTarget returns
 * the content of bin/TARGET, or undefined when there is none.
 */
export function bundledServer(
  extensionPath: string,
  platform: string,
  arch: string,
  readTarget: (p: string) => string | undefined,
): string | undefined {
  const target = readTarget(path.join(extensionPath, 'bin', 'TARGET'))?.trim();
  if (target !== vsceTarget(platform, arch)) return undefined;
  return path.join(extensionPath, 'bin', exeName(platform));
}
