/**
 * Why a tool call was refused or could not be done: the message goes back to the agent as an MCP tool error
 * (`isError`), never as a failure of the server.
 */
export type ToolErrorCode =
  | 'bad-arguments'
  | 'unknown-tool'
  | 'unknown-task'
  | 'unknown-session'
  | 'busy'
  | 'budget'
  | 'too-many-sessions'
  | 'closed'
  /** The client cancelled the call (MCP's notifications/cancelled) or went away: its run was stopped. */
  | 'cancelled'
  /** The call could not be done (the runtime would not start, a file could not be copied): the message says why. */
  | 'failed';

export class ToolError extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'ToolError';
  }
}
