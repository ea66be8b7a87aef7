/**
 * `diffLines(before, after)`: the lines under a review bar (review.ts) or an approval at its cell (pending.ts),
 * kept apart from both so neither imports the other.
 */

/** The lines of `before` then `after`, marked `-` and `+`, for the diff under a bar. */
export function diffLines(before: string | null, after: string | null): string[] {
  const old = before === null ? [] : before.split('\n');
  const now = after === null ? [] : after.split('\n');
  let head = 0;
  while (head < old.length && head < now.length && old[head] === now[head]) {
    head++;
  }
  let tail = 0;
  while (
    tail < old.length - head &&
    tail < now.length - head &&
    old[old.length - 1 - tail] === now[now.length - 1 - tail]
  ) {
    tail++;
  }
  return [
    ...old.slice(0, head).map(line => `  ${line}`),
    ...old.slice(head, old.length - tail).map(line => `- ${line}`),
    ...now.slice(head, now.length - tail).map(line => `+ ${line}`),
    ...old.slice(old.length - tail).map(line => `  ${line}`)
  ];
}
