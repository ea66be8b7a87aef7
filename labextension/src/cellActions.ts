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
import { planCellAction, type CellAction, type IPlannedCell } from './cellLines';
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
type ICommandOptions = Parameters<JupyterFrontEnd['commands']['addCommand']>[1];

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

/** What `action` would insert for the cells the command is about (null: it does not apply). */
function plan(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  action: CellAction,
  args: unknown
): { target: ITarget; planned: IPlannedCell } | null {
  const target = targetOf(app, tracker, args);
  const facts = target?.cells.map(cell => ({ id: cell.model.id, raised: raised(cell) }));
  const planned = facts ? planCellAction(action, facts) : null;
  return target && planned ? { target, planned } : null;
}

/** Both commands: whether they apply and what they do come from the same `planCellAction`. */
function addCellCommand(
  app: JupyterFrontEnd,
  tracker: INotebookTracker,
  action: CellAction,
  options: { label: ICommandOptions['label']; caption: string; iconClass?: string }
): void {
  const applies = (args: unknown): boolean => plan(app, tracker, action, args) !== null;
  app.commands.addCommand(action === 'ask' ? ASK_ABOUT_CELL : FIX_CELL, {
    ...options,
    ...(action === 'ask' ? { isEnabled: applies } : { isVisible: applies }),
    execute: args => {
      const found = plan(app, tracker, action, args);
      if (found === null) {
        return;
      }
      const { target, planned } = found;
      const insert = planned.run ? insertAndRun : insertAskCell;
      insert(target.panel, below(target), planned.source);
    }
  });
}

/** The two commands, the cell context menu items, the shortcut (the toolbar button is in schema/). */
export function addCellActions(app: JupyterFrontEnd, tracker: INotebookTracker): void {
  addCellCommand(app, tracker, 'ask', {
    // In the cell toolbar the icon alone (JupyterLab passes `toolbar: true`); the caption is its tooltip.
    label: args => ((args as { toolbar?: unknown }).toolbar === true ? '' : ASK_CELL_LABEL),
    caption: `${ASK_CELL_LABEL}: insert a %%agent cell below that refers to it (to all selected cells)`,
    iconClass: 'jp-agent-ask-icon'
  });
  addCellCommand(app, tracker, 'fix', {
    label: FIX_CELL_LABEL,
    caption: 'Insert a %agent fix cell below that sends this cell’s error to the agent, and run it'
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
