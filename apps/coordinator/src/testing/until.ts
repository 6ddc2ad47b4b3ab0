/** Resolves once `check` holds, looking again every 20 ms; the test timeout is the hang guard. */
export async function until(check: () => boolean): Promise<void> {
  while (!check()) await new Promise((resolve) => setTimeout(resolve, 20));
}
