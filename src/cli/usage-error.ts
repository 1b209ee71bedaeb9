/** The command line is wrong (a bad flag value, a missing payload): exit code 2, and nothing was done. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
