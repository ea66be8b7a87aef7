/**
 * Applying a request's ops to a notebook: the semantics of every op, independent of
 * JupyterLab (see doc.ts) so they are unit-tested directly.
 *
 * Each op either applies completely or not at all: a handler first checks everything
 * (ids, expected sources, payload) and only then makes its change, in one `change` call.
 * A failing op yields an error result and the next op runs as if it had not been there.
 */
import type * as nbformat from '@jupyterlab/nbformat';

import type { IDocCell, INotebookDoc } from './doc';
import type {
  ErrorCode,
  ICellInfo,
  ICellResult,
  IClearOutputsOp,
  IClearOutputsResult,
  IDeleteOp,
  IDeleteResult,
  IGetCellsResult,
  IInsertOp,
  IMoveOp,
  IOpError,
  IReplaceOp,
  IRestoreOp,
  ISetOutputsOp,
  ISetTypeOp,
  Op,
  OpResult
} from './protocol';
import { parseOp } from './validate';

export interface IApplied {
  results: OpResult[];
  /** Ids of cells the agent inserted or changed, for the "touched" marking. */
  touched: string[];
}

function error(code: ErrorCode, message: string, extra: Partial<IOpError> = {}): IOpError {
  return { ok: false, error: code, message, ...extra };
}

/** Thrown inside a handler to return an error result; anything else is EXECUTION_ERROR. */
class OpFailed extends Error {
  constructor(readonly result: IOpError) {
    super(result.message);
  }
}

interface ILocated {
  index: number;
  cell: IDocCell;
}

function locate(doc: INotebookDoc, id: string): ILocated {
  const cells = doc.cells();
  const index = cells.findIndex(c => c.id === id);
  if (index < 0) {
    throw new OpFailed(
      error(
        'CELL_NOT_FOUND',
        `no cell with id '${id}' in ${doc.path}; read the notebook again for current ids`
      )
    );
  }
  return { index, cell: cells[index] };
}

/**
 * The stale check: the kernel says which source it last read; if the live source differs,
 * the user (or someone) changed the cell since and nothing must be overwritten. It runs
 * synchronously right before the change, so no keystroke can slip in between.
 */
function checkExpected(found: ILocated, expect: string | null): void {
  if (expect === null) {
    return;
  }
  const current = found.cell.getSource();
  if (current !== expect) {
    throw new OpFailed(
      error(
        'STALE_READ',
        `cell '${found.cell.id}' changed since it was read; read it again before editing it`,
        { current }
      )
    );
  }
}

/** Deleting, moving or retyping recreates the cell's widget, which would cut off a run. */
function checkIdle(found: ILocated, what: string): void {
  if (found.cell.isRunning()) {
    throw new OpFailed(
      error(
        'CELL_BUSY',
        `cell '${found.cell.id}' is running or queued; wait until it finishes to ${what} it`
      )
    );
  }
}

function cellInfo(cell: IDocCell): ICellInfo {
  const json = cell.toJSON();
  const code = json.cell_type === 'code' ? (json as nbformat.ICodeCell) : null;
  return {
    id: cell.id,
    cell_type: cell.cellType,
    source: cell.getSource(),
    execution_count: code?.execution_count ?? null,
    outputs: code?.outputs ?? [],
    metadata: json.metadata
  };
}

function emptyCell(type: IInsertOp['cell_type'], source: string): nbformat.ICell {
  return type === 'code'
    ? { cell_type: 'code', source, metadata: {}, outputs: [], execution_count: null }
    : { cell_type: type, source, metadata: {} };
}

class Applier {
  readonly touched = new Set<string>();

  constructor(private readonly doc: INotebookDoc) {}

  run(op: Op): OpResult {
    switch (op.op) {
      case 'get_cells':
        return this.getCells();
      case 'insert':
        return this.insert(op);
      case 'replace':
        return this.replace(op);
      case 'set_type':
        return this.setType(op);
      case 'delete':
        return this.delete(op);
      case 'restore':
        return this.restore(op);
      case 'set_outputs':
        return this.setOutputs(op);
      case 'move':
        return this.move(op);
      case 'clear_outputs':
        return this.clearOutputs(op);
    }
  }

  private done(id: string, index: number): ICellResult {
    this.touched.add(id);
    return { ok: true, id, index };
  }

  /** Two cells with one id would make every later op on that id ambiguous. */
  private checkFreeId(id: string, what: string): void {
    if (this.doc.cells().some(c => c.id === id)) {
      throw new OpFailed(
        error(
          'CELL_EXISTS',
          `a cell with id '${id}' is already in ${this.doc.path}; cannot ${what}`
        )
      );
    }
  }

  private getCells(): IGetCellsResult {
    const { doc } = this;
    return { ok: true, cells: doc.cells().map(cellInfo), path: doc.path, dirty: doc.dirty };
  }

  private insert(op: IInsertOp): ICellResult {
    if (op.id !== undefined) {
      this.checkFreeId(op.id, 'insert a cell with it');
    }
    const index = op.after_id === null ? 0 : locate(this.doc, op.after_id).index + 1;
    const cell = emptyCell(op.cell_type, op.source);
    if (op.id !== undefined) {
      cell.id = op.id;
    }
    const created = this.doc.change(true, () => this.doc.insertCell(index, cell));
    return this.done(created.id, index);
  }

  private replace(op: IReplaceOp): ICellResult {
    const found = locate(this.doc, op.id);
    checkExpected(found, op.expect);
    if (found.cell.getSource() === op.source) {
      // Nothing to change: no undo step, no marking.
      return { ok: true, id: op.id, index: found.index };
    }
    this.doc.change(true, () => found.cell.setSource(op.source));
    return this.done(op.id, found.index);
  }

  private setType(op: ISetTypeOp): ICellResult {
    const found = locate(this.doc, op.id);
    checkExpected(found, op.expect);
    if (found.cell.cellType === op.cell_type) {
      return { ok: true, id: op.id, index: found.index };
    }
    checkIdle(found, 'change the type of');
    const old = found.cell.toJSON();
    const replacement: nbformat.ICell = {
      ...emptyCell(op.cell_type, found.cell.getSource()),
      id: old.id,
      metadata: old.metadata
    };
    // Markdown and raw cells carry attachments (pasted images); keep them when both sides can.
    if (op.cell_type !== 'code' && old.attachments !== undefined) {
      replacement.attachments = old.attachments;
    }
    // Insert first, then delete: if the insert throws, nothing has changed.
    this.doc.change(true, () => {
      this.doc.insertCell(found.index, replacement);
      this.doc.deleteCell(found.index + 1);
    });
    return this.done(op.id, found.index);
  }

  private delete(op: IDeleteOp): IDeleteResult {
    const found = locate(this.doc, op.id);
    checkExpected(found, op.expect);
    checkIdle(found, 'delete');
    const cell = found.cell.toJSON();
    this.doc.change(true, () => this.doc.deleteCell(found.index));
    this.touched.delete(op.id);
    return { ok: true, id: op.id, index: found.index, cell };
  }

  private restore(op: IRestoreOp): ICellResult {
    const id = op.cell.id as string;
    this.checkFreeId(id, 'restore it');
    // The notebook may have shrunk since the delete; past the end means "append".
    const index = Math.min(op.index, this.doc.cells().length);
    this.doc.change(true, () => this.doc.insertCell(index, op.cell));
    return this.done(id, index);
  }

  private setOutputs(op: ISetOutputsOp): ICellResult {
    const found = locate(this.doc, op.id);
    checkCode(found);
    checkExpected(found, op.expect);
    // Outputs are not undoable, as with a normal run in JupyterLab. Two transactions: JupyterLab's
    // output model applies a replace of the shared outputs as "insert the new, then delete the old",
    // and merges an inserted stream into the old last stream before deleting it: the text would show
    // twice in the model, then vanish, and nothing would render. Cleared first, nothing is left to merge with.
    this.doc.change(false, () => found.cell.setOutputs([], op.execution_count));
    this.doc.change(false, () => found.cell.setOutputs(op.outputs, op.execution_count));
    return this.done(op.id, found.index);
  }

  /**
   * The same cell (id, source, outputs, metadata) at its new place, as JupyterLab's own move does:
   * inserted from its JSON, then the old one deleted, in one undoable change. Moving recreates the
   * cell's widget, so a running cell is refused like a delete.
   */
  private move(op: IMoveOp): ICellResult {
    if (op.after_id === op.id) {
      throw new OpFailed(
        error('INVALID_OP', `cell '${op.id}' cannot go after itself; name another cell or null`)
      );
    }
    const found = locate(this.doc, op.id);
    checkExpected(found, op.expect);
    // Where it goes, counted in the list as it is now (with the cell still at its old place).
    const insertAt = op.after_id === null ? 0 : locate(this.doc, op.after_id).index + 1;
    if (insertAt === found.index || insertAt === found.index + 1) {
      return { ok: true, id: op.id, index: found.index }; // already there: no undo step, no mark
    }
    checkIdle(found, 'move');
    const cell = found.cell.toJSON();
    const deleteAt = insertAt < found.index ? found.index + 1 : found.index;
    // Insert first, then delete: if the insert throws, nothing has changed.
    this.doc.change(true, () => {
      this.doc.insertCell(insertAt, cell);
      this.doc.deleteCell(deleteAt);
    });
    return this.done(op.id, insertAt < found.index ? insertAt : insertAt - 1);
  }

  /** Outputs and count cleared in one undoable change (Ctrl+Z brings them back, unlike a run). */
  private clearOutputs(op: IClearOutputsOp): IClearOutputsResult {
    const found = locate(this.doc, op.id);
    checkCode(found);
    checkExpected(found, op.expect);
    const cell = found.cell.toJSON();
    const code = cell as nbformat.ICodeCell;
    if ((code.outputs ?? []).length === 0 && (code.execution_count ?? null) === null) {
      return { ok: true, id: op.id, index: found.index, cell }; // nothing to clear: no undo step
    }
    this.doc.change(true, () => found.cell.setOutputs([], null));
    return { ...this.done(op.id, found.index), cell };
  }
}

/** Only code cells have outputs. */
function checkCode(found: ILocated): void {
  if (found.cell.cellType !== 'code') {
    throw new OpFailed(
      error(
        'INVALID_OP',
        `cell '${found.cell.id}' is a ${found.cell.cellType} cell; only code cells have outputs`
      )
    );
  }
}

function describeError(e: unknown): string {
  if (e instanceof Error) {
    return `${e.name}: ${e.message}`;
  }
  return String(e);
}

/**
 * Apply one request's ops in order and return one result per op. Never throws: an op
 * that fails for an unexpected reason becomes EXECUTION_ERROR and the batch goes on.
 */
export function applyOps(doc: INotebookDoc, ops: readonly unknown[]): IApplied {
  const applier = new Applier(doc);
  const results = doc.batch(() =>
    ops.map((raw, position): OpResult => {
      const parsed = parseOp(raw, position);
      if (!parsed.ok) {
        return parsed.error;
      }
      try {
        return applier.run(parsed.op);
      } catch (e) {
        if (e instanceof OpFailed) {
          return e.result;
        }
        return error(
          'EXECUTION_ERROR',
          `ops[${position}] (${parsed.op.op}) failed: ${describeError(e)}`
        );
      }
    })
  );
  return { results, touched: [...applier.touched] };
}
