/**
 * An in-memory INotebookDoc that behaves like JupyterLab's shared model where it matters:
 * the cell list seen through cells() only changes when a `change` ends, and a change that
 * throws half-way keeps what it did (Yjs has no rollback) — so a handler that is not
 * atomic shows up in the tests.
 */
import type * as nbformat from '@jupyterlab/nbformat';

import type { IDocCell, INotebookDoc } from '../doc';
import type { CellType } from '../protocol';

function copy<T>(value: T): T {
  return JSON.parse(JSON.stringify(value)) as T;
}

export class FakeCell implements IDocCell {
  running = false;
  source: string;
  outputs: nbformat.IOutput[];
  /** Every list of outputs written into the cell, in order (one per setOutputs). */
  outputHistory: nbformat.IOutput[][] = [];
  executionCount: number | null;
  metadata: nbformat.ICell['metadata'];
  attachments: nbformat.IAttachments | undefined;

  constructor(
    private readonly doc: FakeDoc,
    readonly id: string,
    readonly cellType: CellType,
    json: nbformat.ICell
  ) {
    this.source = Array.isArray(json.source) ? json.source.join('') : json.source;
    const code = json as Partial<nbformat.ICodeCell>;
    this.outputs = copy(code.outputs ?? []);
    this.executionCount = code.execution_count ?? null;
    this.metadata = copy(json.metadata ?? {});
    const attachments = (json as Partial<nbformat.IMarkdownCell>).attachments;
    this.attachments = attachments === undefined ? undefined : copy(attachments);
  }

  getSource(): string {
    return this.source;
  }

  setSource(source: string): void {
    this.doc.assertChanging();
    this.source = source;
  }

  setOutputs(outputs: nbformat.IOutput[], executionCount: number | null): void {
    this.doc.assertChanging();
    if (this.cellType !== 'code') {
      throw new Error('not a code cell');
    }
    this.outputs = copy(outputs);
    this.outputHistory.push(copy(outputs));
    this.executionCount = executionCount;
  }

  isRunning(): boolean {
    return this.running;
  }

  toJSON(): nbformat.ICell {
    const base = { id: this.id, source: this.source, metadata: copy(this.metadata) };
    if (this.cellType === 'code') {
      return {
        ...base,
        cell_type: 'code',
        outputs: copy(this.outputs),
        execution_count: this.executionCount
      };
    }
    return this.attachments === undefined
      ? { ...base, cell_type: this.cellType }
      : { ...base, cell_type: this.cellType, attachments: copy(this.attachments) };
  }
}

export interface IChangeRecord {
  undoable: boolean;
}

export class FakeDoc implements INotebookDoc {
  readonly path = 'work/analysis.ipynb';
  dirty = false;
  readonly changes: IChangeRecord[] = [];
  batches = 0;
  /** Makes the next insertCell throw, to test EXECUTION_ERROR. */
  failNextInsert: Error | null = null;
  private committed: FakeCell[] = [];
  private pending: FakeCell[] | null = null;
  private nextId = 1;

  constructor(cells: Array<Partial<nbformat.ICell> & { cell_type: CellType }> = []) {
    this.committed = cells.map(c =>
      this.make({ source: '', metadata: {}, ...c } as nbformat.ICell)
    );
  }

  /** Shorthand: a doc with code cells a, b, c whose sources are "A", "B", "C". */
  static abc(): FakeDoc {
    return new FakeDoc(
      ['a', 'b', 'c'].map(id => ({
        id,
        cell_type: 'code' as const,
        source: id.toUpperCase(),
        outputs: [],
        execution_count: null
      }))
    );
  }

  ids(): string[] {
    return this.committed.map(c => c.id);
  }

  cell(id: string): FakeCell {
    const found = this.committed.find(c => c.id === id);
    if (found === undefined) {
      throw new Error(`test: no cell ${id}`);
    }
    return found;
  }

  assertChanging(): void {
    if (this.pending === null) {
      throw new Error('test: change outside doc.change()');
    }
  }

  cells(): readonly FakeCell[] {
    return this.committed;
  }

  change<T>(undoable: boolean, fn: () => T): T {
    if (this.pending !== null) {
      throw new Error('test: nested change');
    }
    this.pending = [...this.committed];
    try {
      return fn();
    } finally {
      this.committed = this.pending;
      this.pending = null;
      this.changes.push({ undoable });
      this.dirty = true;
    }
  }

  batch<T>(fn: () => T): T {
    this.batches++;
    return fn();
  }

  insertCell(index: number, cell: nbformat.ICell): IDocCell {
    this.assertChanging();
    if (this.failNextInsert !== null) {
      const failure = this.failNextInsert;
      this.failNextInsert = null;
      throw failure;
    }
    const created = this.make(cell);
    this.pending!.splice(index, 0, created);
    return created;
  }

  deleteCell(index: number): void {
    this.assertChanging();
    if (index < 0 || index >= this.pending!.length) {
      throw new Error(`test: delete index ${index} out of range`);
    }
    this.pending!.splice(index, 1);
  }

  private make(json: nbformat.ICell): FakeCell {
    const id = typeof json.id === 'string' ? json.id : `new-${this.nextId++}`;
    return new FakeCell(this, id, json.cell_type as CellType, json);
  }
}
