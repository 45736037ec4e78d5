// Finding the ccdag executable: the user's setting, then the binary shipped in the extension,
// then PATH.

import * as fs from 'fs';
import * as path from 'path';
import * as vscode from 'vscode';
import { bundledServer, exeName, expandPath, refersToWorkspace } from './serverPath';

export interface ResolvedServer {
  command: string;
  source: 'setting' | 'bundled' | 'PATH';
  /** Set when ccdag.server.path was not used because the workspace is not trusted. */
  refused?: string;
}

export class ServerNotFoundError extends Error {
  constructor(
    message: string,
    readonly fromSetting: boolean,
  ) {
    super(message);
  }
}

const exe = exeName(process.platform);

function isExecutableFile(p: string): boolean {
  try {
    const st = fs.statSync(p);
    if (!st.isFile()) return false;
    if (process.platform === 'win32') return true;
    fs.accessSync(p, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** Expands `~` and `${workspaceFolder}`; a relative path is taken from the first workspace folder. */
function folders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
}

/**
 * The binary shipped in the extension, when this build carries one for this platform
 * (`make vsix` builds one .vsix per target, each with its own; bundledServer). Zip extraction may
 * lose the executable bit: it is restored here.
 */
function bundled(extensionPath: string): string | undefined {
  const p = bundledServer(extensionPath, process.platform, process.arch, (f) => {
    try {
      return fs.readFileSync(f, 'utf8');
    } catch {
      return undefined;
    }
  });
  if (!p) return undefined;
  try {
    if (!fs.statSync(p).isFile()) return undefined;
  } catch {
    return undefined;
  }
  if (!isExecutableFile(p)) {
    try {
      fs.chmodSync(p, 0o755);
    } catch {
      return undefined;
    }
  }
  return isExecutableFile(p) ? p : undefined;
}

function onPath(): string | undefined {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean);
  for (const dir of dirs) {
    const p = path.join(dir, exe);
    if (isExecutableFile(p)) return p;
  }
  return undefined;
}


export function resolveServer(extensionPath: string): ResolvedServer {
  const configured = vscode.workspace.getConfiguration('ccdag').get<string>('server.path', '');
  let refused: string | undefined;
  if (configured && configured.trim() !== '' && !vscode.workspace.isTrusted && refersToWorkspace(configured, folders())) {
    refused =
      `ccdag: this workspace is not trusted (Restricted Mode), so the setting ccdag.server.path ("${configured}"), ` +
      'which refers to a file of the workspace, is not run. Using the server shipped with the extension instead; ' +
      'trust the workspace to use the setting.';
  } else if (configured && configured.trim() !== '') {
    const p = expandPath(configured, folders());
    if (isExecutableFile(p)) return { command: p, source: 'setting' };
    throw new ServerNotFoundError(
      `ccdag: the setting ccdag.server.path is "${configured}", but ${p} is not an executable file. ` +
        'Fix the path, or clear the setting to use the bundled server or the ccdag on your PATH.',
      true,
    );
  }
  const b = bundled(extensionPath);
  if (b) return { command: b, source: 'bundled', refused };
  const fromPath = onPath();
  if (fromPath) return { command: fromPath, source: 'PATH', refused };
  throw new ServerNotFoundError(
    (refused ? refused.replace('Using the server shipped with the extension instead; ', '') + ' ' : '') +
    'ccdag: the language server was not found. This build of the extension carries no server for ' +
      `${process.platform}-${process.arch} and there is no "${exe}" on your PATH. Install it with ` +
      '"go install github.com/ccdag/ccdag/cmd/ccdag@latest" (then restart VS Code or run "ccdag: Restart ' +
      'Language Server"), or set ccdag.server.path to the executable.',
    false,
  );
}
