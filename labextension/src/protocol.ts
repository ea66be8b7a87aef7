/**
 * The wire protocol between the kernel side of jupyter_agent and this extension.
 *
 * docs/notebook-protocol.md is the one place it is described; keep the two in step.
 * Everything here is type declarations and constants: no JupyterLab, no DOM.
 */
import type * as nbformat from '@jupyterlab/nbformat';

/** Comm target the kernel opens a comm to. */
export const COMM_TARGET = 'jupyter_agent.notebook';

/** Bumped on incompatible changes; sent in the hello message. */
export const PROTOCOL_VERSION = 1;

export type CellType = 'code' | 'markdown' | 'raw';

export const CELL_TYPES: readonly CellType[] = ['code', 'markdown', 'raw'];

/** Stable identifiers the kernel can branch on (the message is for people and the model). */
export type ErrorCode =
  'CELL_NOT_FOUND' | 'STALE_READ' | 'INVALID_OP' | 'CELL_BUSY' | 'CELL_EXISTS' | 'EXECUTION_ERROR';

// ---------------------------------------------------------------------------
// Operations (kernel -> browser, inside a request)

export interface IGetCellsOp {
  op: 'get_cells';
}

export interface IInsertOp {
  op: 'insert';
  /** null inserts at the top. */
  after_id: string | null;
  cell_type: CellType;
  source: string;
  /** Optional id for the new cell (so later ops of the same request can address it). */
  id?: string;
}

export interface IReplaceOp {
  op: 'replace';
  id: string;
  source: string;
  /** The source the kernel last read; null skips the stale check. */
  expect: string | null;
}

export interface ISetTypeOp {
  op: 'set_type';
  id: string;
  cell_type: CellType;
  expect: string | null;
}

export interface IDeleteOp {
  op: 'delete';
  id: string;
  expect: string | null;
}

export interface IRestoreOp {
  op: 'restore';
  index: number;
  cell: nbformat.ICell;
}

/** Moves a cell (same id, source, outputs and metadata) to right after `after_id` (null: the top). */
export interface IMoveOp {
  op: 'move';
  id: string;
  /** null moves the cell to the top; the key is required, as for insert. */
  after_id: string | null;
  expect: string | null;
}

/** Clears a code cell's outputs and execution count, as one undoable change. */
export interface IClearOutputsOp {
  op: 'clear_outputs';
  id: string;
  expect: string | null;
}

export interface ISetOutputsOp {
  op: 'set_outputs';
  id: string;
  outputs: nbformat.IOutput[];
  execution_count: number | null;
  /** The source the outputs belong to (undo of a clear); null skips the check. */
  expect: string | null;
}

export type Op =
  | IGetCellsOp
  | IInsertOp
  | IReplaceOp
  | ISetTypeOp
  | IDeleteOp
  | IRestoreOp
  | ISetOutputsOp
  | IMoveOp
  | IClearOutputsOp;

export type OpName = Op['op'];

export const OP_NAMES: readonly OpName[] = [
  'get_cells',
  'insert',
  'replace',
  'set_type',
  'delete',
  'restore',
  'set_outputs',
  'move',
  'clear_outputs'
];

// ---------------------------------------------------------------------------
// Results (one per op, in order)

export interface IOpError {
  ok: false;
  error: ErrorCode;
  message: string;
  /** STALE_READ only: the live source, so the kernel can show or re-read it. */
  current?: string;
}

export interface ICellInfo {
  id: string;
  cell_type: CellType;
  source: string;
  execution_count: number | null;
  outputs: nbformat.IOutput[];
  metadata: nbformat.ICell['metadata'];
}

export interface IGetCellsResult {
  ok: true;
  cells: ICellInfo[];
  path: string;
  dirty: boolean;
}

/** Result of insert, replace, set_type, restore, set_outputs and move. */
export interface ICellResult {
  ok: true;
  id: string;
  /** Position of the cell after the op (for delete: where it was). */
  index: number;
}

export interface IDeleteResult extends ICellResult {
  /** The deleted cell as nbformat JSON (id, outputs, metadata...), for `restore`. */
  cell: nbformat.ICell;
}

export interface IClearOutputsResult extends ICellResult {
  /** The cell as it was before (its outputs and execution count), for `set_outputs` to undo the clear. */
  cell: nbformat.ICell;
}

export type OpResult =
  IGetCellsResult | ICellResult | IDeleteResult | IClearOutputsResult | IOpError;

// ---------------------------------------------------------------------------
// Messages on the comm

export interface IHelloMessage {
  type: 'hello';
  /** Notebook path relative to the server root. */
  path: string;
  protocol: number;
  /** Random per browser page; lets the kernel address one page when several answer. */
  client_id: string;
}

export interface IPathChangedMessage {
  type: 'path_changed';
  path: string;
}

export interface IRequestMessage {
  type: 'request';
  request_id: string;
  ops: unknown[];
  /** When set, only the page with this client_id answers. */
  client_id?: string;
}

export interface IResponseMessage {
  type: 'response';
  request_id: string | null;
  results: OpResult[];
  /** Every notebook open in this browser page, server-relative (an empty request asks only for this). */
  open_notebooks?: string[];
  /** Set only when the request itself was malformed (then results is empty). */
  error?: 'INVALID_REQUEST';
  message?: string;
}

export type OutgoingMessage = IHelloMessage | IPathChangedMessage | IResponseMessage;
