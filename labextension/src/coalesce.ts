/**
 * `coalesced(fn)`: a function that runs `fn` once, in a microtask, however often it is called
 * before then — a redraw after a burst of model changes (one per op of a request) runs once.
 */
export function coalesced(fn: () => void): () => void {
  let queued = false;
  return () => {
    if (queued) {
      return;
    }
    queued = true;
    void Promise.resolve().then(() => {
      queued = false;
      fn();
    });
  };
}
