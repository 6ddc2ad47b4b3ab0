/**
 * The SDK's own write beside a task, the anchor arms' request
 * (README, What it measures): one push notification config per task under a
 * fixed id, so each call replaces the task's config and the SDK's push store
 * stays one entry per task. The bench server's push sender sends nothing.
 */
export const PUSH_CONFIG_ID = 'bench';

/** A TaskPushNotificationConfig as ProtoJSON (JSON-RPC params; REST takes it minus taskId). */
export function pushConfigJson(taskId: string) {
  return {
    taskId,
    id: PUSH_CONFIG_ID,
    url: 'http://127.0.0.1:9/bench-webhook',
    token: 'bench-token',
  };
}
