/**
 * Cell actions: "Ask the agent about this cell" (cell toolbar, cell context menu, Shift+Q in
 * command mode) inserts a `%%agent` cell below with `@cell:ID` for the cell — or for every
 * selected cell — and leaves the cursor after the references to type the question. "Fix this
 * cell with the agent" (context menu, on a cell whose last run raised) does what the Fix button
 * under a traceback does, for that cell: it inserts `%agent fix ID` below and runs it.
 *
 * Everything happens in the page; only a cell id from the live model goes into the new cell, and
 * only when it is a valid nbformat id, so a click never runs text a notebook chose.
 */
import type { JupyterFrontEnd } from '@jupyterlab/application';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';

import { insertAskCell } from './askOutput';
import { askCellSource, fixCellCommand } from './cellLines';
import { insertAndRun } from './fixButton';

export const ASK_ABOUT_CELL = 'jupyter-agent:ask-about-cell';
export const FIX_CELL = 'jupyter-agent:fix-cell';
export const ASK_CELL_LABEL = 'Ask the agent about this cell';
export const FIX_CELL_LABEL = 'Fix this cell with the agent';
/** Command mode only: Q (for question) has no default binding in JupyterLab or Notebook 7. */
export const ASK_CELL_KEYS = ['Shift Q'];
const COMMAND_MODE = '.jp-Notebook.jp-mod-commandMode:not(.jp-mod-readWrite) :focus';
const CELL_SELECTOR = '.jp-Notebook .jp-Cell';

type CellWidget = NotebookPanel['content']['widgets'][number];

interface ITarget {
  panel: NotebookPanel;
  /** The cells the action is about, in notebook order. */
  cells: CellWidget[];
}

/** Whether the cell's last run raised: it shows an error output. */
export function raised(cell: CellWidget): boolean {
  const outputs = (cell.model as { outputs?: { length: number; get(i: number): { type: string } } })
    .outputs;
  if (cell.model.type !== 'code' || outputs === undefined) {
    return false;
  }
  for (let i = 0; i < outputs.length; i++) {
    if (outputs.get(i).type === 'error') {
      return true;
    }
  }
  return false;
}

/**
 * The cells an action is about: from the context menu, the right-clicked cell (with the rest of the
 * selection when it is part of it); from the toolbar or the shortcut, the current notebook's
 * selection. (The hit test remembers the last right-click, so it is asked only from the menu.)
 */
function targetOf(app: JupyterFrontEnd, tracker: INotebookTracker, args: unknown): ITarget | null {
  const fromMenu = (args as { fromMenu?: unknown } | undefined)?.fromMenu === true;
  const hit = fromMenu
    ? app.contextMenuHitTest(node => node.classList.contains('jp-Cell'))
    : undefined;
  const panel = hit
    ? tracker.find(p => p.content.node.contains(hit))
    : (tracker.currentWidget ?? undefined);
  if (!panel) {
    return null;
  }
  const notebook = panel.content;
  const selected = notebook.widgets.filter(cell => notebook.isSelectedOrActive(cell));
  const clicked = hit ? notebook.widgets.find(cell => cell.node === hit) : undefined;
  if (clicked !== undefined && !selected.includes(clicked)) {
    return { panel, cells: [clicked] };
  }
  return selected.length > 0 ? { panel, cells: selected } : null;
}

/** Where a new cell goes: right below the last of the cells. */
function below(target: ITarget): number {
  return target.panel.content.widgets.indexOf(target.cells[target.cells.length - 1]) + 1;
}

function askAbout(target: ITarget): void {
  insertAskCell(target.panel, below(target), askCellSource(target.cells.map(c => c.model.id)));
}

function fix(target: ITarget): void {
  insertAndRun(target.panel, below(target), fixCellCommand(target.cells[0].model.id));
}

/** The two commands, the cell context menu items, the shortcut (the toolbar button is in schema/). */
export function addCellActions(app: JupyterFrontEnd, tracker: INotebookTracker): void {
  app.commands.addCommand(ASK_ABOUT_CELL, {
    // In the cell toolbar the icon alone (JupyterLab passes `toolbar: true`); the caption is its tooltip.
    label: args => ((args as { toolbar?: unknown }).toolbar === true ? '' : ASK_CELL_LABEL),
    caption: `${ASK_CELL_LABEL}: insert a %%agent cell below that refers to it (to all selected cells)`,
    iconClass: 'jp-agent-ask-icon',
    isEnabled: args => targetOf(app, tracker, args) !== null,
    execute: args => {
      const target = targetOf(app, tracker, args);
      if (target) {
        askAbout(target);
      }
    }
  });
  app.commands.addCommand(FIX_CELL, {
    label: FIX_CELL_LABEL,
    caption: 'Insert a %agent fix cell below that sends this cell’s error to the agent, and run it',
    isVisible: args => {
      const target = targetOf(app, tracker, args);
      return target !== null && raised(target.cells[0]);
    },
    execute: args => {
      const target = targetOf(app, tracker, args);
      if (target && raised(target.cells[0])) {
        fix({ panel: target.panel, cells: [target.cells[0]] });
      }
    }
  });
  const args = { fromMenu: true };
  app.contextMenu.addItem({ command: ASK_ABOUT_CELL, selector: CELL_SELECTOR, rank: 0, args });
  app.contextMenu.addItem({ command: FIX_CELL, selector: CELL_SELECTOR, rank: 0, args });
  app.commands.addKeyBinding({
    command: ASK_ABOUT_CELL,
    keys: ASK_CELL_KEYS,
    selector: COMMAND_MODE
  });
}
