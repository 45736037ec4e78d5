// ccdag for VS Code: a client for `ccdag serve` on Claude Code session logs, plus the workflow
// graph, the transcript, "go to parent" and a status bar summary of the active session.

import * as vscode from 'vscode';
import { ClientController } from './client';
import { goToParent } from './goToParent';
import { ResumePreviews } from './resume';
import { GraphPanels } from './graphPanel';
import { SessionsView } from './sessionsView';
import { SessionStatus } from './statusBar';
import { Transcripts, toUri } from './transcript';
import { WillOpen } from './willOpen';

let controller: ClientController | undefined;

export function activate(context: vscode.ExtensionContext): void {
  controller = new ClientController(context);
  const panels = new GraphPanels(controller, context.extensionUri);
  const transcripts = new Transcripts(controller);
  const resumes = new ResumePreviews(controller);
  context.subscriptions.push(
    controller,
    panels,
    new SessionStatus(controller),
    new SessionsView(controller),
    transcripts,
    new WillOpen(controller),
    vscode.commands.registerCommand('ccdag.showWorkflowGraph', (uri?: unknown) => panels.show(toUri(uri))),
    vscode.commands.registerCommand('ccdag.openTranscript', (uri?: unknown) => transcripts.show(uri)),
    vscode.commands.registerCommand('ccdag.openTranscriptPreview', (uri?: unknown) => transcripts.show(uri, true)),
    vscode.commands.registerCommand('ccdag.restartServer', async () => {
      await controller?.restart();
      if (controller?.running) void vscode.window.setStatusBarMessage('ccdag: language server restarted', 3000);
    }),
    vscode.commands.registerCommand('ccdag.goToParent', () => goToParent(controller!)),
    resumes,
    vscode.commands.registerCommand('ccdag.previewResume', (uri?: unknown) => resumes.show(uri)),
  );
  controller.init();
}

export async function deactivate(): Promise<void> {
  await controller?.stop();
}
