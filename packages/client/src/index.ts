// Every export here is public API of @a2a-reminders/client.

// The card and binding vocabulary lives in core, beside the extension entry,
// so agents build cards with it without depending on the client.
export type { AgentCardFields, Binding, InterfaceUrls, ProtocolBinding } from '@a2a-reminders/core';
export {
  A2A_PROTOCOL_VERSION,
  agentCard,
  agentInterfaces,
  BINDINGS,
  bindingOfProtocol,
  findAgentInterface,
  PROTOCOL_BINDING_OF,
} from '@a2a-reminders/core';
export { agentCardUrlOf, fetchAgentCard } from './agent-card-fetch.js';
export { AgentConnectionError } from './agent-connection-error.js';
export type { A2AConnection, AgentConnection, ConnectOptions } from './connect.js';
export { connectToA2AAgent, connectToAgent, withReminderClient } from './connect.js';
export { delegationRequest } from './delegation-request.js';
export type { ClosableReminderClient, ReminderClientTarget } from './reminder-client.js';
export { createReminderClient, grpcBaseUrl } from './reminder-client.js';
export { reminderRequestOptions } from './request-options.js';
