/**
 * The only text the page's buttons and commands write into new cells: constants, and cell ids
 * from the live model that are valid nbformat ids. A notebook from elsewhere can carry outputs
 * and ids of its choosing; a click must never run or send text it chose.
 */
import { askSource } from './askOutput';

/** What the Fix button runs, and "Fix this cell with the agent" with the cell's id. */
export const FIX_COMMAND = '%agent fix';

const VALID_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/** The cell actions: "Ask the agent about this cell" and "Fix this cell with the agent". */
export type CellAction = 'ask' | 'fix';

/** What a cell action needs to know of a cell (from the live model). */
export interface ICellFacts {
  id: string;
  /** Its last run raised: it shows an error output. */
  raised: boolean;
}

/** What a cell action inserts below its cells, and whether it runs it. */
export interface IPlannedCell {
  source: string;
  run: boolean;
}

/** Whether `id` is an nbformat cell id: the only cell text that goes into a new cell. */
export function validCellId(id: string): boolean {
  return VALID_ID.test(id);
}

/**
 * The one path of both cell actions, for the cells they are about (in notebook order): what to
 * insert, or null when the action does not apply (it is then disabled or hidden). Every id goes
 * through the same check: "ask" refers only to the cells with a valid id, and to none if no cell
 * has one; "fix" is about the first cell, when its last run raised.
 */
export function planCellAction(
  action: CellAction,
  cells: readonly ICellFacts[]
): IPlannedCell | null {
  if (action === 'fix') {
    const first = cells[0];
    return first?.raised === true ? { source: fixCellCommand(first.id), run: true } : null;
  }
  const ids = cells.map(cell => cell.id).filter(validCellId);
  return ids.length > 0 ? { source: askCellSource(ids), run: false } : null;
}

/** A `%%agent` cell that refers to each cell with a valid id (`@cell:ID`), with a space for the question. */
export function askCellSource(ids: readonly string[]): string {
  return askSource(
    ids
      .filter(validCellId)
      .map(id => `@cell:${id}`)
      .join(' ')
  );
}

/** The line the Fix command runs for a cell (the plain `%agent fix` when the id is not an nbformat id). */
export function fixCellCommand(id: string): string {
  return validCellId(id) ? `${FIX_COMMAND} ${id}` : FIX_COMMAND;
}
