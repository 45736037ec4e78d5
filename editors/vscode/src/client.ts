// The language client's life: which documents it serves, starting it when the first of them
// opens, restarting it when its settings change, and passing severity overrides to the server.

import { execFile } from 'child_process';
import * as fs from 'fs';
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  ErrorHandler,
  State,
  DocumentFilter,
  LanguageClient,
  LanguageClientOptions,
  RevealOutputChannelOn,
  ServerOptions,
  TransportKind,
} from 'vscode-languageclient/node';
import { resolveServer, ServerNotFoundError } from './server';
import { Timing } from './timing';
import { lensesOpenPreview } from './lenses';
import { willOpenFirst } from './willOpen';

export const CLIENT_ID = 'ccdag';
const CLIENT_NAME = 'ccdag Language Server';

/** The documents served: session logs under .claude/projects, or every .jsonl when the user asks. */
export function documentSelector(): DocumentFilter[] {
  const all = vscode.workspace.getConfiguration('ccdag').get<boolean>('allJsonlFiles', false);
  if (all) return [{ scheme: 'file', language: 'jsonl' }];
  return [{ scheme: 'file', language: 'jsonl', pattern: '**/.claude/projects/**' }];
}

export type Severity = Record<string, string>;

export function severitySetting(): Severity {
  const raw = vscode.workspace.getConfiguration('ccdag').get<unknown>('severity', {});
  const out: Severity = {};
  if (raw && typeof raw === 'object' && !Array.isArray(raw)) {
    for (const [code, level] of Object.entries(raw as Record<string, unknown>)) {
      if (typeof level === 'string') out[code] = level;
    }
  }
  return out;
}

export class ClientController implements vscode.Disposable {
  private client: LanguageClient | undefined;
  private starting: Promise<LanguageClient | undefined> | undefined;
  /** The last start found no runnable server; panels do not retry until something changes. */
  private failed = false;
  /** Error messages on screen now: the same one is not shown twice. */
  private readonly showing = new Set<string>();
  private readonly disposables: vscode.Disposable[] = [];
  private readonly onDidChangeStateEmitter = new vscode.EventEmitter<void>();
  /** Fires when the client starts or stops. */
  readonly onDidChangeState = this.onDidChangeStateEmitter.event;
  readonly output: vscode.OutputChannel;
  private selector: DocumentFilter[] = documentSelector();
  readonly timing: Timing;

  constructor(private readonly context: vscode.ExtensionContext) {
    this.output = vscode.window.createOutputChannel(CLIENT_NAME);
    this.timing = new Timing(this.output);
    this.disposables.push(
      this.output,
      this.onDidChangeStateEmitter,
      vscode.workspace.onDidOpenTextDocument((doc) => {
        if (!this.client && !this.starting && this.serves(doc)) void this.start();
      }),
      vscode.workspace.onDidChangeConfiguration((e) => this.onConfigChange(e)),
      // Trusting the workspace lets ccdag.server.path refer to it again (resolveServer).
      vscode.workspace.onDidGrantWorkspaceTrust(() => {
        if (this.client || this.starting) void this.restart();
      }),
    );
  }

  /** Starts the client now if a served document is already open. */
  init(): void {
    if (vscode.workspace.textDocuments.some((d) => this.serves(d))) void this.start();
  }

  get running(): LanguageClient | undefined {
    return this.client?.isRunning() ? this.client : undefined;
  }

  serves(doc: vscode.TextDocument): boolean {
    return vscode.languages.match(this.selector, doc) > 0;
  }

  /** Whether a file the editor is about to open will be served (documentSelector's rule on its path). */
  servesUri(uri: vscode.Uri): boolean {
    if (uri.scheme !== 'file' || !uri.path.endsWith('.jsonl')) return false;
    const narrowed = this.selector.every((f) => typeof f === 'object' && 'pattern' in f && !!f.pattern);
    return !narrowed || uri.path.includes('/.claude/projects/');
  }

  /**
   * True when the document is served; otherwise tells the user why not and offers to serve every
   * .jsonl file (commands run on a file outside .claude/projects end up here).
   */
  async checkServed(doc: vscode.TextDocument): Promise<boolean> {
    if (this.serves(doc)) return true;
    if (doc.languageId !== 'jsonl') {
      void vscode.window.showInformationMessage('ccdag: open a Claude Code session log (.jsonl) first.');
      return false;
    }
    const pick = await vscode.window.showInformationMessage(
      'ccdag serves the .jsonl files under a .claude/projects folder, where Claude Code writes its session ' +
        'logs. To use it on this file, turn on the setting ccdag.allJsonlFiles.',
      'Serve All .jsonl Files',
    );
    if (pick) {
      const target = vscode.workspace.workspaceFolders?.length
        ? vscode.ConfigurationTarget.Workspace
        : vscode.ConfigurationTarget.Global;
      await vscode.workspace.getConfiguration('ccdag').update('allJsonlFiles', true, target);
    }
    return false;
  }

  /** Starts the client (once); resolves to undefined when the server cannot be found or fails. */
  start(): Promise<LanguageClient | undefined> {
    if (this.client) return Promise.resolve(this.client);
    if (!this.starting) {
      this.starting = this.doStart().finally(() => {
        this.starting = undefined;
      });
    }
    return this.starting;
  }

  /** The running client, started on demand (for commands run before any served document opened). */
  async ensure(): Promise<LanguageClient | undefined> {
    // A panel refreshing after a failed start would otherwise start (and fail, and report) again:
    // the user has the message already; Retry, a restart or a settings change try again.
    if (!this.client && this.failed) return undefined;
    const c = this.client ?? (await this.start());
    if (c && !c.isRunning()) {
      // Starting, or restarting after a crash: wait briefly for it.
      for (let i = 0; i < 50 && !c.isRunning(); i++) await new Promise((r) => setTimeout(r, 100));
    }
    return c?.isRunning() ? c : undefined;
  }

  private async doStart(): Promise<LanguageClient | undefined> {
    this.timing.mark('client start');
    this.timing.reset();
    this.failed = false;
    this.selector = documentSelector();
    let server;
    try {
      server = resolveServer(this.context.extensionPath);
    } catch (err) {
      const message = err instanceof ServerNotFoundError || err instanceof Error ? err.message : String(err);
      this.output.appendLine(message);
      this.failed = true;
      void this.showError(message);
      return undefined;
    }
    if (server.refused) {
      this.output.appendLine(server.refused);
      void vscode.window.showWarningMessage(server.refused);
    }
    // A wrong file (not ccdag, another platform's build, no permission) gets one clear message
    // here, rather than the client's cascade of connection errors.
    // Once per binary (its path, size and time): the check costs a process start before the
    // server's (0.4-1.4 s of the time to first diagnostics on a loaded machine).
    const id = binaryIdentity(server.command);
    const checked = this.context.globalState.get<string>(PREFLIGHT_KEY);
    let broken: string | undefined;
    if (!id || id !== checked) {
      broken = await preflight(server.command);
      this.timing.mark('preflight (ccdag version) done');
      if (!broken && id) void this.context.globalState.update(PREFLIGHT_KEY, id);
    }
    if (broken) {
      const message =
        `ccdag: ${server.command} (${describeSource(server.source)}) does not run: ${broken}. ` +
        'Set ccdag.server.path to a working ccdag, or install one on your PATH.';
      this.output.appendLine(message);
      this.failed = true;
      void this.showError(message);
      return undefined;
    }
    const extra = vscode.workspace.getConfiguration('ccdag').get<string[]>('server.args', []) ?? [];
    const args = ['serve', ...extra.filter((a) => typeof a === 'string')];
    this.output.appendLine(`Starting ${server.command} ${args.join(' ')} (found: ${server.source})`);
    // TransportKind.stdio: the client appends --stdio, which `ccdag serve` accepts.
    const serverOptions: ServerOptions = {
      run: { command: server.command, args, transport: TransportKind.stdio },
      debug: { command: server.command, args, transport: TransportKind.stdio },
    };
    let ever = false; // the server reached Running once
    let defaultHandler: ErrorHandler | undefined;
    const fallback = () => (defaultHandler ??= client.createDefaultErrorHandler(4));
    const clientOptions: LanguageClientOptions = {
      documentSelector: this.selector,
      initializationOptions: { severity: severitySetting(), prices: pricesSetting(), claudeVersion: claudeVersionSetting(), redact: redactSetting() },
      outputChannel: this.output,
      middleware: lensesOpenPreview(willOpenFirst(() => client, this.timing.middleware())),
      revealOutputChannelOn: RevealOutputChannelOn.Never,
      // Failing to start is reported once (by the client); no retry of the initialize request.
      initializationFailedHandler: () => false,
      errorHandler: {
        error: (error, message, count) =>
          ever ? fallback().error(error, message, count) : { action: ErrorAction.Shutdown, handled: true },
        // A server that dies after it worked is restarted (up to 4 times in 3 minutes, the client's
        // default); one that never got going is not.
        closed: () => (ever ? fallback().closed() : { action: CloseAction.DoNotRestart, handled: true }),
      },
    };
    const client = new LanguageClient(CLIENT_ID, CLIENT_NAME, serverOptions, clientOptions);
    client.onDidChangeState((e) => {
      if (e.newState === State.Running) ever = true;
    });
    this.client = client;
    client.onDidChangeState(() => this.fireState());
    try {
      this.timing.mark('server spawn, initialize');
      await client.start();
      this.timing.mark('initialized');
    } catch (err) {
      const msg = err instanceof Error ? err.message : String(err);
      this.output.appendLine(`The server did not start: ${msg}`);
      // The client has already shown "couldn't create connection to server" with a link to this output.
      if (this.client === client) this.client = undefined;
      this.failed = true;
      try {
        await client.dispose();
      } catch {
        // already stopped
      }
      this.fireState();
      return undefined;
    }
    this.fireState();
    return client;
  }

  private fireState(): void {
    void vscode.commands.executeCommand('setContext', 'ccdag.serving', !!this.running);
    this.onDidChangeStateEmitter.fire();
  }

  /**
   * Shows a start failure with its two ways out. VS Code replaces a notification by an identical
   * new one, and a click on the old one is then lost, so a message still on screen is not shown again.
   */
  private async showError(message: string): Promise<void> {
    if (this.showing.has(message)) return;
    this.showing.add(message);
    let pick: string | undefined;
    try {
      pick = await vscode.window.showErrorMessage(message, 'Open Settings', 'Retry');
    } finally {
      this.showing.delete(message);
    }
    await this.onPick(pick);
  }

  private async onPick(pick: string | undefined): Promise<void> {
    if (pick === 'Open Settings') {
      await openServerPathSetting();
    } else if (pick === 'Show Output') {
      this.output.show(true);
    } else if (pick === 'Retry') {
      await this.restart();
    }
  }

  async stop(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    if (c) {
      try {
        await c.stop(3000);
      } catch {
        // a server that is already gone
      }
      try {
        await c.dispose();
      } catch {
        // ditto
      }
    }
    this.fireState();
  }

  async restart(): Promise<void> {
    if (this.starting) await this.starting;
    await this.stop();
    await this.start();
  }

  private onConfigChange(e: vscode.ConfigurationChangeEvent): void {
    if (
      e.affectsConfiguration('ccdag.server.path') ||
      e.affectsConfiguration('ccdag.server.args') ||
      e.affectsConfiguration('ccdag.allJsonlFiles')
    ) {
      this.selector = documentSelector();
      if (this.client || this.starting) {
        void this.restart();
      } else if (vscode.workspace.textDocuments.some((d) => this.serves(d))) {
        void this.start();
      }
      return;
    }
    if (e.affectsConfiguration('ccdag.severity') || e.affectsConfiguration('ccdag.prices') || e.affectsConfiguration('ccdag.claudeVersion') || e.affectsConfiguration('ccdag.redact')) {
      const c = this.running;
      if (c) {
        void c.sendNotification(DidChangeConfigurationNotification.type, {
          settings: { ccdag: { severity: severitySetting(), prices: pricesSetting(), claudeVersion: claudeVersionSetting(), redact: redactSetting() } },
        });
      }
    }
  }

  dispose(): void {
    for (const d of this.disposables) d.dispose();
  }
}

/** ccdag.prices: a price table file in LiteLLM's format; "" for the built-in one. */
function pricesSetting(): string {
  const v = vscode.workspace.getConfiguration('ccdag').get<string>('prices');
  return typeof v === 'string' ? v : '';
}

/** ccdag.redact: results hide secrets unless it is false (docs/spec.md §15). */
function redactSetting(): boolean {
  return vscode.workspace.getConfiguration('ccdag').get<boolean>('redact') !== false;
}

/** ccdag.claudeVersion: the Claude Code that will resume the sessions; "" for the newest in the logs. */
function claudeVersionSetting(): string {
  const v = vscode.workspace.getConfiguration('ccdag').get<string>('claudeVersion');
  return typeof v === 'string' ? v.trim() : '';
}

function describeSource(source: 'setting' | 'bundled' | 'PATH'): string {
  switch (source) {
    case 'setting':
      return 'from the setting ccdag.server.path';
    case 'bundled':
      return 'shipped with the extension';
    default:
      return 'found on PATH';
  }
}

const PREFLIGHT_KEY = 'ccdag.preflightPassed';

/** The binary's resolved path, size and modification time; undefined when it cannot be read. */
function binaryIdentity(command: string): string | undefined {
  try {
    const real = fs.realpathSync(command);
    const st = fs.statSync(real);
    return `${real}\0${st.size}\0${st.mtimeMs}`;
  } catch {
    return undefined; // a bare name found on PATH by the spawn, or gone: checked every time
  }
}

/** Runs `ccdag version`; returns why it failed, or undefined when it ran. */
function preflight(command: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(command, ['version'], { timeout: 10000, windowsHide: true }, (err, _stdout, stderr) => {
      if (!err) return resolve(undefined);
      const e = err as NodeJS.ErrnoException & { killed?: boolean; code?: string | number; signal?: string };
      if (e.killed) return resolve('it did not answer "version" within 10 seconds');
      if (typeof e.code === 'string') return resolve(`${e.code} (${e.message})`);
      const first = String(stderr || '').trim().split('\n')[0];
      resolve(`"version" exited with ${e.code ?? e.signal}${first ? `: ${first}` : ''}`);
    });
  });
}

/**
 * Opens the Settings editor on ccdag.server.path. It is a machine setting: in a remote window (SSH,
 * WSL, containers, code-server) VS Code reads it from the remote machine's settings, so that tab.
 */
async function openServerPathSetting(): Promise<void> {
  if (vscode.env.remoteName) {
    try {
      await vscode.commands.executeCommand('workbench.action.openRemoteSettings', { query: 'ccdag.server.path' });
      return;
    } catch {
      // an older VS Code: the user settings below
    }
  }
  await vscode.commands.executeCommand('workbench.action.openSettings', 'ccdag.server.path');
}
