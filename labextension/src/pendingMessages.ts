/**
 * The messages of an approval shown at its cells (docs/notebook-protocol.md §7b), read from what
 * the kernel sent, and the words the page shows for them. No DOM, no JupyterLab: unit-tested
 * directly; pending.ts draws them.
 */
import { isRecord } from './nbjson';

export type PendingChange = 'replace' | 'insert' | 'delete' | 'move' | 'clear_outputs' | 'run';
export type PendingOutcome = 'allowed' | 'denied' | 'stale' | 'interrupted';

const CHANGES: readonly string[] = ['replace', 'insert', 'delete', 'move', 'clear_outputs', 'run'];
const OUTCOMES: readonly string[] = ['allowed', 'denied', 'stale', 'interrupted'];

export interface IPendingCell {
  cell_id: string;
  change: PendingChange;
  before: string;
  after: string;
  cell_type: string;
  /** insert and move: the cell it would follow (null: the top). */
  after_id: string | null;
  clears_outputs: boolean;
}

export interface IPending {
  pending_id: string;
  title: string;
  allow_edits: boolean;
  cells: IPendingCell[];
}

export interface IPendingDone {
  pending_id: string;
  outcome: PendingOutcome;
  text: string;
}

/** What a click at the cell answers. */
export type Answer = 'allow' | 'deny' | 'allow_edits';

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/** A `pending` message, or null for anything else (malformed cells are skipped). */
export function parsePending(data: unknown): IPending | null {
  if (!isRecord(data) || data.type !== 'pending' || typeof data.pending_id !== 'string') {
    return null;
  }
  const cells: IPendingCell[] = [];
  for (const raw of Array.isArray(data.cells) ? (data.cells as unknown[]) : []) {
    if (!isRecord(raw) || !CHANGES.includes(String(raw.change))) {
      continue;
    }
    const change = raw.change as PendingChange;
    if (change !== 'insert' && (typeof raw.cell_id !== 'string' || raw.cell_id === '')) {
      continue;
    }
    cells.push({
      cell_id: text(raw.cell_id),
      change,
      before: text(raw.before),
      after: text(raw.after),
      cell_type: typeof raw.cell_type === 'string' ? raw.cell_type : 'code',
      after_id: typeof raw.after_id === 'string' ? raw.after_id : null,
      clears_outputs: raw.clears_outputs === true
    });
  }
  return {
    pending_id: data.pending_id,
    title: text(data.title),
    allow_edits: data.allow_edits === true,
    cells
  };
}

export function parsePendingDone(data: unknown): IPendingDone | null {
  if (!isRecord(data) || data.type !== 'pending_done' || typeof data.pending_id !== 'string') {
    return null;
  }
  const outcome = String(data.outcome);
  return {
    pending_id: data.pending_id,
    outcome: OUTCOMES.includes(outcome) ? (outcome as PendingOutcome) : 'denied',
    text: text(data.text)
  };
}

/** The pending_id of a `reveal` message ("Show in notebook"), or null. */
export function parseReveal(data: unknown): string | null {
  return isRecord(data) && data.type === 'reveal' && typeof data.pending_id === 'string'
    ? data.pending_id
    : null;
}

/** What the agent wants to do to the cell, in words (`index` of `count` cells of one question). */
export function headline(cell: IPendingCell, index: number, count: number): string {
  switch (cell.change) {
    case 'replace':
      return `The agent wants to change this cell${cell.clears_outputs ? ' and clear its outputs' : ''}`;
    case 'clear_outputs':
      return 'The agent wants to clear this cell’s outputs';
    case 'delete':
      return 'The agent wants to delete this cell';
    case 'move':
      return cell.after_id === null
        ? 'The agent wants to move this cell to the top'
        : `The agent wants to move this cell after cell ${cell.after_id}`;
    case 'insert':
      return `The agent wants to insert a new ${cell.cell_type} cell here`;
    case 'run':
      return count > 1
        ? `The agent wants to run this cell (${index + 1} of ${count})`
        : 'The agent wants to run this cell';
  }
}

/**
 * The cells of a question whose source is no longer what it was when the question arrived (the
 * user typed, or deleted the cell): each of them refuses it.
 */
export function changedCells(
  snapshot: ReadonlyMap<string, string>,
  current: (id: string) => string | null
): string[] {
  return [...snapshot].filter(([id, source]) => current(id) !== source).map(([id]) => id);
}
