/** Longest last error kept for a task, in characters: enough for a message, never a dump. */
export const MAX_LAST_ERROR_CHARS = 1000;

/**
 * The text kept as a task's last error: the error's message (its name when
 * that says more than "Error"), cut to MAX_LAST_ERROR_CHARS. Never a stack
 * or a payload: the message is what the handler chose to say.
 */
export function lastErrorMessage(error: unknown): string {
  let text: string;
  if (error instanceof Error) {
    const name = error.name && error.name !== 'Error' ? `${error.name}: ` : '';
    text = `${name}${error.message}`;
  } else if (typeof error === 'string') {
    text = error;
  } else {
    try {
      text = JSON.stringify(error) ?? String(error);
    } catch {
      text = String(error);
    }
  }
  if (text.length === 0) text = 'failed (no message)';
  return text.length <= MAX_LAST_ERROR_CHARS ? text : `${text.slice(0, MAX_LAST_ERROR_CHARS - 1)}…`;
}
