/**
 * The worker's view of its model turns. The loop itself runs on the Vercel
 * AI SDK (coding-agent-executor.ts): each step of its tool loop is one turn,
 * the model any AI SDK language model (the offline scripted one, or an
 * OpenAI-compatible endpoint). {@link TurnPrompt} is what one turn's prompt
 * holds, as `--log-prompts` prints it and tests read it.
 */

/**
 * The roles of an AI SDK prompt. `system` carries instructions and ambient
 * context; only `user` speaks for the task's requester, and reminders never
 * use it (spec: Rendering).
 */
export type ChatRole = 'system' | 'user' | 'assistant' | 'tool';

export interface ChatMessage {
  readonly role: ChatRole;
  readonly content: string;
  /**
   * Why this message is in the prompt: the agent's instructions, the task's
   * own history, the loop's working memory, or this turn's reminders. Only for
   * inspection (`--log-prompts`); a model sees `role` and `content`.
   */
  readonly origin: 'instructions' | 'task-history' | 'working-memory' | 'reminder';
}

/** Everything the model sees at one turn boundary. */
export interface TurnPrompt {
  readonly taskId: string;
  /** 1-based turn number within the task. */
  readonly turn: number;
  /** Turns the task may use at most (`--turns`); `Infinity` when it has no limit (`--turns 0`). */
  readonly maxTurns: number;
  readonly messages: readonly ChatMessage[];
}

/** The kinds of step the coding agent takes. */
export type StepKind = 'plan' | 'read' | 'edit' | 'test' | 'rebase' | 'fix' | 'wrap-up' | 'report';

/** What the model decided to do this turn. */
export interface Step {
  readonly kind: StepKind;
  /** One line for the task's progress updates. */
  readonly summary: string;
  /** True when this step finishes the task. */
  readonly done: boolean;
}
