/**
 * R57: displacement events wait on their task for up to the service's delay
 * (10 s by default, R67; run-bench.ts sets the longest timer, so they wait
 * through an interleaved group's parts). Publishing them all after a warm-up
 * keeps their status updates out of the measured window; publishing them
 * after the window, before its CPU is read, charges the window for all of
 * its own: one status update per task it displaced on, as a delay of one
 * slice would send (as many as the default delay sends for a slice of 10 s).
 * The route answers once the A2A server has stored them (admin-route.ts).
 */
export async function settleDelayedEvents(post: (path: string) => Promise<unknown>): Promise<void> {
  await post('/admin/publish-delayed');
}
