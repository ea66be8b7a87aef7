/**
 * Marking the cells the agent inserted or changed (CSS class `jp-agent-touched`) until the
 * user edits or runs them, so it is visible at a glance what the agent did.
 *
 * Marks are kept by cell id, not by widget: JupyterLab recreates widgets when a cell moves
 * or changes type, and the agent's own changes come back as ordinary model changes.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';
import { NotebookActions } from '@jupyterlab/notebook';

export const TOUCHED_CLASS = 'jp-agent-touched';

type SharedCell = NonNullable<NotebookPanel['model']>['sharedModel']['cells'][number];

interface ISourceSignal {
  connect(
    slot: (sender: unknown, change: { sourceChange?: unknown }) => void,
    thisArg?: unknown
  ): boolean;
  disconnect(
    slot: (sender: unknown, change: { sourceChange?: unknown }) => void,
    thisArg?: unknown
  ): boolean;
}

export class TouchedCells {
  private readonly ids = new Set<string>();
  /** The shared cell each marked id is watched on (replaced when the cell is recreated). */
  private readonly watched = new Map<string, SharedCell>();
  private applying = 0;
  private syncQueued = false;
  private disposed = false;

  constructor(private readonly panel: NotebookPanel) {
    panel.model?.cells.changed.connect(this.queueSync, this);
    NotebookActions.executionScheduled.connect(this.onRun, this);
    NotebookActions.executed.connect(this.onRun, this);
  }

  /**
   * Run the agent's changes: source changes seen meanwhile are the agent's own and must not
   * clear a mark (JupyterLab reports them synchronously, at the end of each transaction).
   */
  whileApplying<T>(fn: () => T): T {
    this.applying++;
    try {
      return fn();
    } finally {
      this.applying--;
    }
  }

  mark(ids: readonly string[]): void {
    if (ids.length === 0) {
      return;
    }
    ids.forEach(id => this.ids.add(id));
    this.sync();
  }

  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    this.panel.model?.cells.changed.disconnect(this.queueSync, this);
    NotebookActions.executionScheduled.disconnect(this.onRun, this);
    NotebookActions.executed.disconnect(this.onRun, this);
    for (const id of [...this.watched.keys()]) {
      this.unwatch(id);
    }
    this.ids.clear();
  }

  private unmark(id: string): void {
    if (!this.ids.delete(id)) {
      return;
    }
    this.unwatch(id);
    this.sync();
  }

  private onRun(_: unknown, args: { notebook: unknown; cell: { model: { id: string } } }): void {
    if (args.notebook === this.panel.content) {
      this.unmark(args.cell.model.id);
    }
  }

  private onSourceChange(sender: unknown, change: { sourceChange?: unknown }): void {
    if (this.applying > 0 || change.sourceChange === undefined) {
      return;
    }
    for (const [id, cell] of this.watched) {
      if (cell === sender) {
        this.unmark(id);
        return;
      }
    }
  }

  private signalOf(cell: SharedCell): ISourceSignal {
    return cell.changed as unknown as ISourceSignal;
  }

  private watch(id: string, cell: SharedCell): void {
    const current = this.watched.get(id);
    if (current === cell) {
      return;
    }
    this.unwatch(id);
    this.signalOf(cell).connect(this.onSourceChange, this);
    this.watched.set(id, cell);
  }

  private unwatch(id: string): void {
    const cell = this.watched.get(id);
    if (cell !== undefined) {
      this.signalOf(cell).disconnect(this.onSourceChange, this);
      this.watched.delete(id);
    }
  }

  /** Cell widgets are created after the model change that adds them; look once all ran. */
  private queueSync(): void {
    if (this.syncQueued || this.ids.size === 0) {
      return;
    }
    this.syncQueued = true;
    void Promise.resolve().then(() => {
      this.syncQueued = false;
      this.sync();
    });
  }

  private sync(): void {
    const model = this.panel.model;
    if (this.disposed || this.panel.isDisposed || model === null) {
      return;
    }
    const present = new Map<string, SharedCell>();
    for (const cell of model.sharedModel.cells) {
      present.set(cell.getId(), cell);
    }
    for (const id of [...this.ids]) {
      const cell = present.get(id);
      if (cell === undefined) {
        // Gone (deleted, or its insert undone): forget it.
        this.ids.delete(id);
        this.unwatch(id);
      } else {
        this.watch(id, cell);
      }
    }
    for (const widget of this.panel.content.widgets) {
      widget.toggleClass(TOUCHED_CLASS, this.ids.has(widget.model.id));
    }
  }
}
