/** Matching the kernel's notion of its notebook path against a panel's path. */

function trimSlashes(path: string): string {
  return path.replace(/^\/+/, '').replace(/\/+$/, '');
}

/**
 * Whether `kernelPath` (from the comm_open data) names the file at `panelPath` (relative to
 * the server root, drive prefix removed). The kernel may know it relative to the server
 * root or only as an absolute path on disk; an absolute path matches by its tail.
 */
export function samePath(panelPath: string, kernelPath: string): boolean {
  const local = trimSlashes(panelPath);
  const given = kernelPath.replace(/\\/g, '/');
  if (local === '') {
    return false;
  }
  return trimSlashes(given) === local || (given.startsWith('/') && given.endsWith(`/${local}`));
}
