/**
 * "Fix with agent" under a traceback: the kernel displays a small output of type FIX_MIME after a cell
 * raises; this renders it as a button that inserts a `%agent fix` cell right below the failing cell and
 * runs it. Everything happens in the page, so it works while the kernel is idle and needs no round trip.
 * Where this extension is not installed the output's text/plain and text/html say to run `%agent fix`.
 */
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';
import { NotebookActions } from '@jupyterlab/notebook';
import type { IRenderMime, IRenderMimeRegistry } from '@jupyterlab/rendermime';
import { Widget } from '@lumino/widgets';

export const FIX_MIME = 'application/vnd.jupyter-agent.fix+json';

// The only line the button ever runs (cellLines.ts): a constant, not taken from the output, since a
// notebook from elsewhere could carry an output of this type, and a click must not run code it chose.
import { FIX_COMMAND } from './cellLines';

export { FIX_COMMAND };

/** What the kernel sends: the error the button is about (shown as the tooltip, as plain text). */
interface IFixData {
  error?: unknown;
}

/** The cell (by index) of `panel` whose node holds `node`, or -1. */
function cellIndexOf(panel: NotebookPanel, node: HTMLElement): number {
  return panel.content.widgets.findIndex(cell => cell.node.contains(node));
}

class FixButton extends Widget implements IRenderMime.IRenderer {
  constructor(private readonly tracker: INotebookTracker) {
    super();
    this.addClass('jp-agent-fix');
  }

  async renderModel(model: IRenderMime.IMimeModel): Promise<void> {
    const data = (model.data[FIX_MIME] ?? {}) as IFixData;
    const button = document.createElement('button');
    button.className = 'jp-agent-fix-button jp-mod-styled';
    button.textContent = 'Fix with agent';
    const about = typeof data.error === 'string' ? `: ${data.error.slice(0, 200)}` : '';
    button.title = `Insert a ${FIX_COMMAND} cell below and run it${about}`;
    button.onclick = () => this.insertAndRun();
    this.node.replaceChildren(button);
  }

  private insertAndRun(): void {
    const panel = this.tracker.find(p => p.node.contains(this.node));
    if (!panel) {
      return;
    }
    const index = cellIndexOf(panel, this.node);
    if (index < 0) {
      return;
    }
    insertAndRun(panel, index + 1, FIX_COMMAND);
  }
}

/** A code cell at `index` with `source` (a fix command, see cellLines.ts), run at once. */
export function insertAndRun(panel: NotebookPanel, index: number, source: string): void {
  const notebook = panel.content;
  notebook.model?.sharedModel.insertCell(index, { cell_type: 'code', source });
  notebook.deselectAll();
  notebook.activeCellIndex = index;
  void NotebookActions.run(notebook, panel.sessionContext);
}

/** Registers the renderer; it is safe to render anywhere: it can only insert and run FIX_COMMAND. */
export function addFixButton(rendermime: IRenderMimeRegistry, tracker: INotebookTracker): void {
  rendermime.addFactory(
    {
      safe: true,
      mimeTypes: [FIX_MIME],
      createRenderer: () => new FixButton(tracker)
    },
    0
  );
}
