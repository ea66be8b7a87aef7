/**
 * INotebookDoc over JupyterLab's shared notebook model (@jupyter/ydoc's YNotebook), so the
 * ops change the live document: they show at once, collaborators see them, the user can
 * undo them, and nothing is written to disk.
 */
import type * as nbformat from '@jupyterlab/nbformat';
import type { INotebookModel } from '@jupyterlab/notebook';

import type { IDocCell, INotebookDoc } from './doc';
import type { CellType } from './protocol';
import { minimalEdit } from './text';

type SharedNotebook = INotebookModel['sharedModel'];
type SharedCell = SharedNotebook['cells'][number];
type SharedCodeCell = Extract<SharedCell, { cell_type: 'code' }>;

function isCode(cell: SharedCell): cell is SharedCodeCell {
  return cell.cell_type === 'code';
}

/**
 * The part of Yjs' UndoManager used to make one request one undo step. YNotebook exposes
 * it as `undoManager`, but the ISharedNotebook interface does not declare it.
 */
interface IUndoCapture {
  captureTimeout: number;
  stopCapturing(): void;
}

function undoCapture(model: SharedNotebook): IUndoCapture | null {
  const candidate: unknown = (model as { undoManager?: unknown }).undoManager;
  if (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof (candidate as IUndoCapture).stopCapturing === 'function' &&
    typeof (candidate as IUndoCapture).captureTimeout === 'number'
  ) {
    return candidate as IUndoCapture;
  }
  return null;
}

class SharedDocCell implements IDocCell {
  constructor(
    private readonly cell: SharedCell,
    private readonly onOutputs: (id: string) => void
  ) {}

  get id(): string {
    return this.cell.getId();
  }

  get cellType(): CellType {
    return this.cell.cell_type as CellType;
  }

  getSource(): string {
    return this.cell.getSource();
  }

  setSource(source: string): void {
    const edit = minimalEdit(this.cell.getSource(), source);
    this.cell.updateSource(edit.start, edit.end, edit.text);
  }

  setOutputs(outputs: nbformat.IOutput[], executionCount: number | null): void {
    const cell = this.cell;
    if (!isCode(cell)) {
      throw new Error(`cell '${this.id}' is not a code cell`);
    }
    cell.setOutputs(outputs);
    cell.execution_count = executionCount;
    this.onOutputs(this.id);
  }

  isRunning(): boolean {
    return isCode(this.cell) && this.cell.executionState === 'running';
  }

  toJSON(): nbformat.ICell {
    return this.cell.toJSON() as nbformat.ICell;
  }
}

export interface ISharedDocOptions {
  model: SharedNotebook;
  path: string;
  /** Called with the id of each cell whose outputs were written (to trust them later). */
  onOutputs: (id: string) => void;
}

export class SharedNotebookDoc implements INotebookDoc {
  constructor(private readonly options: ISharedDocOptions) {}

  get path(): string {
    return this.options.path;
  }

  get dirty(): boolean {
    return this.options.model.dirty;
  }

  cells(): readonly IDocCell[] {
    return this.options.model.cells.map(c => this.wrap(c));
  }

  change<T>(undoable: boolean, fn: () => T): T {
    let result: T | undefined;
    let done = false;
    // The notebook's transaction carries the notebook as origin, which is what its undo
    // manager tracks; a cell's own transact would go to the per-cell undo history instead.
    this.options.model.transact(() => {
      result = fn();
      done = true;
    }, undoable);
    if (!done) {
      throw new Error('the notebook transaction did not run');
    }
    return result as T;
  }

  batch<T>(fn: () => T): T {
    // Each op is its own transaction (so the next op sees the cell list it left), and the
    // undo manager merges consecutive tracked transactions while capturing. Stop capturing
    // before and after, and never let the capture window close inside the batch, so the
    // request is exactly one undo step, separate from the user's changes around it.
    const capture = undoCapture(this.options.model);
    if (capture === null) {
      return fn();
    }
    const timeout = capture.captureTimeout;
    capture.stopCapturing();
    capture.captureTimeout = Number.POSITIVE_INFINITY;
    try {
      return fn();
    } finally {
      capture.captureTimeout = timeout;
      capture.stopCapturing();
    }
  }

  insertCell(index: number, cell: nbformat.ICell): IDocCell {
    return this.wrap(this.options.model.insertCell(index, cell));
  }

  deleteCell(index: number): void {
    this.options.model.deleteCell(index);
  }

  private wrap(cell: SharedCell): IDocCell {
    return new SharedDocCell(cell, this.options.onOutputs);
  }
}
