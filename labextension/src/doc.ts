/**
 * The notebook as the op handlers see it: an ordered list of cells plus a few primitive
 * changes. index.ts adapts JupyterLab's shared model to it (sharedDoc.ts); the unit tests
 * use an in-memory fake. Nothing here knows about the DOM or the comm.
 */
import type * as nbformat from '@jupyterlab/nbformat';

import type { CellType } from './protocol';

export interface IDocCell {
  readonly id: string;
  readonly cellType: CellType;
  getSource(): string;
  /** Replace the source; implementations may apply only the differing middle part. */
  setSource(source: string): void;
  /** Code cells only. */
  setOutputs(outputs: nbformat.IOutput[], executionCount: number | null): void;
  /** Running or queued in the frontend: its widget must not be recreated under it. */
  isRunning(): boolean;
  /** Full nbformat JSON: id, source, metadata, and outputs/execution_count for code. */
  toJSON(): nbformat.ICell;
}

export interface INotebookDoc {
  /** Path relative to the server root. */
  readonly path: string;
  readonly dirty: boolean;
  /**
   * The cells in order. Like JupyterLab's shared model, this may only reflect structural
   * changes (insert/delete) once the enclosing `change` has returned, so a handler reads
   * everything it needs before it changes anything.
   */
  cells(): readonly IDocCell[];
  /**
   * Run `fn` as one atomic change. Undoable changes enter the notebook's undo history;
   * the others (outputs, like a normal execution) do not.
   */
  change<T>(undoable: boolean, fn: () => T): T;
  /** Run one request's ops so that all their undoable changes form one undo step. */
  batch<T>(fn: () => T): T;
  /** Insert nbformat cell JSON (with or without an id) at `index`; returns the new cell. */
  insertCell(index: number, cell: nbformat.ICell): IDocCell;
  deleteCell(index: number): void;
}
