/**
 * Undo steps that must run however the run ends (a failed check, an
 * exception, Ctrl-C): worker processes and lock holders are killed, the
 * file systems the run mounted unmounted and their loop devices detached.
 * Each step is synchronous, since `exit` listeners cannot wait; the normal
 * path undoes everything itself first and unregisters.
 */
const hooks = new Set<() => void>();
let installed = false;

/** Registers `undo` to run at process exit; the returned function unregisters it. */
export function atExit(undo: () => void): () => void {
  install();
  hooks.add(undo);
  return () => {
    hooks.delete(undo);
  };
}

function install(): void {
  if (installed) return;
  installed = true;
  process.once('exit', () => {
    for (const undo of [...hooks].reverse()) {
      try {
        undo();
      } catch {
        // Best effort: the next hook still runs.
      }
    }
    hooks.clear();
  });
}
