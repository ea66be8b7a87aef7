/**
 * A `%%agent` cell reads as a request, not as Python: its editor gets plain-text highlighting
 * (no `for`, `and`, `in` as keywords, no `@sales` as a decorator) and wraps long lines, so the
 * request stays readable in a narrow window.
 *
 * Page state only: the cell's editor mimetype and line wrapping are never saved. The notebook
 * resets every code cell's mimetype when the kernel's language arrives, so each cell's
 * `mimeTypeChanged` brings the override back; a cell that stops starting with `%%agent`
 * gets the notebook's mimetype and its wrapping back.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';

import { coalesced } from './coalesce';

type Cell = NotebookPanel['content']['widgets'][number];

export const REQUEST_MIME = 'text/plain';
export const REQUEST_CLASS = 'jp-agent-request-cell';

/** A cell whose source is an agent request: `%%agent` on its first line that is not blank. */
export function isAgentRequest(source: string): boolean {
  return /^\s*%%agent(\s|$)/.test(source);
}

/**
 * The editor loads a language asynchronously and applies whichever load ends last: Python's first
 * load can end after plain text's, bringing the keywords back. Once it has loaded (a moment later),
 * setting the mimetype through Python and back to plain text applies plain text last.
 */
const NUDGES = [300, 1500, 5000];

function nudge(model: Cell['model']): void {
  if (model.isDisposed || model.mimeType !== REQUEST_MIME) {
    return;
  }
  model.mimeType = 'text/x-ipython';
  model.mimeType = REQUEST_MIME;
}

export function watchAgentCells(panel: NotebookPanel): void {
  const notebook = panel.content;
  const watched = new WeakSet<object>();
  const wrapBefore = new WeakMap<object, unknown>();
  const apply = (cell: Cell): void => {
    const model = cell.model;
    if (model.type !== 'code') {
      return;
    }
    if (!watched.has(model)) {
      watched.add(model);
      model.mimeTypeChanged.connect(queue);
    }
    const request = isAgentRequest(model.sharedModel.getSource());
    const mime = request ? REQUEST_MIME : notebook.codeMimetype;
    if (request || cell.hasClass(REQUEST_CLASS)) {
      if (model.mimeType !== mime) {
        model.mimeType = mime;
        if (request) {
          NUDGES.forEach(delay => setTimeout(() => nudge(model), delay));
        }
      }
      cell.toggleClass(REQUEST_CLASS, request);
      void cell.ready.then(() => {
        const editor = cell.editor;
        if (editor === null || cell.isDisposed) {
          return;
        }
        if (request && !wrapBefore.has(model)) {
          wrapBefore.set(model, editor.getOption('lineWrap'));
        }
        const wrap = request ? true : (wrapBefore.get(model) ?? false);
        if (!request) {
          wrapBefore.delete(model);
        }
        if (editor.getOption('lineWrap') !== wrap) {
          editor.setOption('lineWrap', wrap);
        }
      });
    }
  };
  const queue = coalesced(() => {
    if (!panel.isDisposed) {
      notebook.widgets.forEach(apply);
    }
  });
  notebook.model?.contentChanged.connect(queue);
  notebook.model?.cells.changed.connect(queue);
  notebook.modelChanged.connect(() => {
    notebook.model?.contentChanged.connect(queue);
    notebook.model?.cells.changed.connect(queue);
    queue();
  });
  queue();
}
