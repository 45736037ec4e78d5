// The server's "Open Transcript" code lens names the client command ccdag.openTranscript, the one
// the three editors register. In VS Code that command opens the transcript's Markdown source
// (escaped: `There\'s`, `setup\-impl`), which is for copying and searching; a click on the lens is
// a wish to read the session, so here the lens opens the rendered preview, as the Claude Sessions
// view does. The command palette keeps both.

import type { Middleware } from 'vscode-languageclient/node';

export const SOURCE_COMMAND = 'ccdag.openTranscript';
export const PREVIEW_COMMAND = 'ccdag.openTranscriptPreview';

interface Lens {
  command?: { command: string };
}

/** previewTranscriptLenses points the lenses that open the transcript source at its preview. */
export function previewTranscriptLenses<T extends Lens>(lenses: T[] | null | undefined): T[] | null | undefined {
  for (const l of lenses ?? []) {
    if (l.command?.command === SOURCE_COMMAND) l.command.command = PREVIEW_COMMAND;
  }
  return lenses;
}

/** lensesOpenPreview wraps a middleware so that code lenses, as provided and as resolved, open the preview. */
export function lensesOpenPreview(inner: Middleware): Middleware {
  return {
    ...inner,
    provideCodeLenses: async (doc, token, next) =>
      previewTranscriptLenses(await (inner.provideCodeLenses ? inner.provideCodeLenses(doc, token, next) : next(doc, token))),
    resolveCodeLens: async (lens, token, next) => {
      const r = await (inner.resolveCodeLens ? inner.resolveCodeLens(lens, token, next) : next(lens, token));
      return r ? previewTranscriptLenses([r])?.[0] : r;
    },
  };
}
