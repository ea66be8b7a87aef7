/**
 * JupyterLab plugin: lets the jupyter_agent kernel extension read and edit the live
 * notebook over the `jupyter_agent.notebook` comm (docs/notebook-protocol.md).
 */
import type { JupyterFrontEnd, JupyterFrontEndPlugin } from '@jupyterlab/application';
import { INotebookTracker } from '@jupyterlab/notebook';
import { IRenderMimeRegistry } from '@jupyterlab/rendermime';

import { NotebookBridge } from './bridge';
import { addApprovalKeys } from './approvalKeys';
import { addAskAboutOutput } from './askOutput';
import { addCellActions } from './cellActions';
import { addFixButton } from './fixButton';

const plugin: JupyterFrontEndPlugin<void> = {
  id: 'jupyter-agent:plugin',
  description: 'Applies the jupyter_agent kernel extension’s cell operations to the live notebook.',
  autoStart: true,
  requires: [INotebookTracker, IRenderMimeRegistry],
  activate: (
    app: JupyterFrontEnd,
    tracker: INotebookTracker,
    rendermime: IRenderMimeRegistry
  ): void => {
    const bridge = new NotebookBridge(tracker, app.serviceManager.contents);
    // Panels restored before this plugin activated, then every new one.
    tracker.forEach(panel => bridge.watch(panel));
    tracker.widgetAdded.connect((_, panel) => bridge.watch(panel));
    addUndoKeys(app);
    addApprovalKeys();
    addFixButton(rendermime, tracker);
    addAskAboutOutput(app, tracker);
    addCellActions(app, tracker);
  }
};

/**
 * Ctrl/Cmd+Z in command mode undoes the last cell operation — an agent's whole batch is one — as `Z`
 * does; Ctrl/Cmd+Shift+Z redoes. In edit mode the keys stay with the cell editor's own text undo.
 */
function addUndoKeys(app: JupyterFrontEnd): void {
  const selector = '.jp-Notebook.jp-mod-commandMode:not(.jp-mod-readWrite) :focus';
  app.commands.addKeyBinding({ command: 'notebook:undo-cell-action', keys: ['Accel Z'], selector });
  app.commands.addKeyBinding({
    command: 'notebook:redo-cell-action',
    keys: ['Accel Shift Z'],
    selector
  });
}

export default plugin;
