import type { Connection } from './cli-args.js';
import { isNetworkFailure, UnreachableError } from './cli-errors.js';
import type { WorkerConnection } from './worker-connection.js';
import { connectToWorker } from './worker-connection.js';

/**
 * Connects to the worker, runs `use` and closes the connection. Connecting
 * already names the agent card's URL when the card cannot be fetched; a call
 * that cannot reach the binding's interface afterwards is reported with that
 * interface's URL and the network's reason, not the SDK's `fetch failed`.
 */
export async function withWorker<T>(
  connection: Connection,
  use: (worker: WorkerConnection) => Promise<T>,
): Promise<T> {
  const worker = await connectToWorker(connection);
  try {
    return await use(worker);
  } catch (error) {
    if (!isNetworkFailure(error)) throw error;
    throw new UnreachableError(`the ${worker.binding} interface at ${worker.endpoint}`, error);
  } finally {
    worker.close();
  }
}
