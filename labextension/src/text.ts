/**
 * The smallest single edit that turns one string into another.
 *
 * Replacing a whole cell's text would move the user's cursor to the end and, with several
 * people in the document, clobber their concurrent typing anywhere in the cell. Changing
 * only the differing middle keeps both intact.
 */

export interface IEdit {
  /** Start offset in the old string (UTF-16 code units, as Yjs and CodeMirror count). */
  start: number;
  /** End offset (exclusive) in the old string. */
  end: number;
  /** Text that replaces old[start:end]. */
  text: string;
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

function isLowSurrogate(code: number): boolean {
  return code >= 0xdc00 && code <= 0xdfff;
}

export function minimalEdit(before: string, after: string): IEdit {
  const limit = Math.min(before.length, after.length);
  let prefix = 0;
  while (prefix < limit && before.charCodeAt(prefix) === after.charCodeAt(prefix)) {
    prefix++;
  }
  // Never cut between the two halves of a surrogate pair (an emoji, say).
  if (prefix > 0 && isHighSurrogate(before.charCodeAt(prefix - 1))) {
    prefix--;
  }
  let suffix = 0;
  while (
    suffix < limit - prefix &&
    before.charCodeAt(before.length - 1 - suffix) === after.charCodeAt(after.length - 1 - suffix)
  ) {
    suffix++;
  }
  if (suffix > 0 && isLowSurrogate(before.charCodeAt(before.length - suffix))) {
    suffix--;
  }
  return {
    start: prefix,
    end: before.length - suffix,
    text: after.slice(prefix, after.length - suffix)
  };
}
