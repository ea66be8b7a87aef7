/**
 * The only text the page's buttons and commands write into new cells: constants, and cell ids
 * from the live model that are valid nbformat ids. A notebook from elsewhere can carry outputs
 * and ids of its choosing; a click must never run or send text it chose.
 */
import { askSource } from './askOutput';

/** What the Fix button runs, and "Fix this cell with the agent" with the cell's id. */
export const FIX_COMMAND = '%agent fix';

const VALID_ID = /^[a-zA-Z0-9_-]{1,64}$/;

/** A `%%agent` cell that refers to each cell (`@cell:ID`), with a space for the question. */
export function askCellSource(ids: readonly string[]): string {
  return askSource(ids.map(id => `@cell:${id}`).join(' '));
}

/** The line the Fix command runs for a cell (the plain `%agent fix` when the id is not an nbformat id). */
export function fixCellCommand(id: string): string {
  return VALID_ID.test(id) ? `${FIX_COMMAND} ${id}` : FIX_COMMAND;
}
