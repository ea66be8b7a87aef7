/**
 * "Ask the agent about this output" in an output's context menu: inserts a `%%agent` cell right below
 * the cell, with a reference to that output (`@output:CELLID:N`, N counting the cell's outputs from 1 as
 * they are shown), and puts the cursor after it to type the question. When the cell runs, the kernel
 * attaches that output's text or image to the request (jupyter_agent/references/).
 *
 * Everything happens in the page: nothing runs, and the kernel need not be idle.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';

export const ASK_ABOUT_OUTPUT = 'jupyter-agent:ask-about-output';
export const ASK_LABEL = 'Ask the agent about this output';
const OUTPUT_CHILD = 'jp-OutputArea-child';

/** `@output:ab12:2` for the second output of cell `ab12` (`index` counts from 0). */
export function outputReference(cellId: string, index: number): string {
  return `@output:${cellId}:${index + 1}`;
}

/** The new cell's source: the magic, then the reference and a space for the question. */
export function askSource(reference: string): string {
  return `%%agent\n${reference} `;
}

/**
 * The position of the output holding `node` among the cell's own outputs (the outermost output area:
 * an output that itself holds outputs, such as an ipywidgets Output, counts as one), or -1.
 */
export function outputIndex(area: HTMLElement, node: HTMLElement): number {
  const children = Array.from(area.children).filter(child =>
    child.classList.contains(OUTPUT_CHILD)
  );
  return children.findIndex(child => child.contains(node));
}

type CellWidget = NotebookPanel['content']['widgets'][number];

/** The node of a code cell's output area (markdown and raw cells have none). */
function outputAreaNode(cell: CellWidget): HTMLElement | null {
  const area = (cell as { outputArea?: { node?: unknown } }).outputArea;
  return cell.model.type === 'code' && area?.node instanceof HTMLElement ? area.node : null;
}

interface ITarget {
  panel: NotebookPanel;
  cellIndex: number;
  reference: string;
}

function targetOf(tracker: INotebookTracker, node: HTMLElement): ITarget | null {
  const panel = tracker.find(p => p.content.node.contains(node));
  if (!panel) {
    return null;
  }
  const cellIndex = panel.content.widgets.findIndex(cell => cell.node.contains(node));
  const cell = panel.content.widgets[cellIndex];
  const area = cell === undefined ? null : outputAreaNode(cell);
  if (cell === undefined || area === null) {
    return null;
  }
  const index = outputIndex(area, node);
  return index < 0 ? null : { panel, cellIndex, reference: outputReference(cell.model.id, index) };
}

/** A `%%agent` cell at `index` with `source`, in edit mode, the cursor at its end for the question. */
export function insertAskCell(panel: NotebookPanel, index: number, source: string): void {
  const notebook = panel.content;
  const model = notebook.model;
  if (!model) {
    return;
  }
  model.sharedModel.insertCell(index, { cell_type: 'code', source });
  notebook.deselectAll();
  notebook.activeCellIndex = index;
  notebook.mode = 'edit';
  const cell = notebook.activeCell;
  void cell?.ready.then(() => {
    const editor = cell.editor;
    if (editor) {
      editor.focus();
      editor.setCursorPosition(editor.getPositionAt(source.length) ?? { line: 1, column: 0 });
    }
  });
}

/** The command and its context-menu item on every output of a notebook cell. */
export function addAskAboutOutput(app: JupyterFrontEnd, tracker: INotebookTracker): void {
  const hit = (): HTMLElement | undefined =>
    app.contextMenuHitTest(node => node.classList.contains(OUTPUT_CHILD));
  app.commands.addCommand(ASK_ABOUT_OUTPUT, {
    label: ASK_LABEL,
    caption:
      'Insert a %%agent cell below that asks about this output (its text or image goes along)',
    isEnabled: () => {
      const node = hit();
      return node !== undefined && targetOf(tracker, node) !== null;
    },
    execute: () => {
      const node = hit();
      const target = node ? targetOf(tracker, node) : null;
      if (target) {
        insertAskCell(target.panel, target.cellIndex + 1, askSource(target.reference));
      }
    }
  });
  app.contextMenu.addItem({
    command: ASK_ABOUT_OUTPUT,
    selector: `.jp-Notebook .${OUTPUT_CHILD}`,
    rank: 0
  });
}
