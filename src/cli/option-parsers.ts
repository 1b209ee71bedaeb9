import { InvalidArgumentError } from 'commander';
import { QUEUE_NAME_PATTERN } from '../core/queue-config.js';
import { TASK_NAME_PATTERN } from '../core/task.js';

/** A commander parser for a whole number from min to max (a bad value is a usage error, exit 2). */
export function wholeNumber(min: number, max: number): (value: string) => number {
  return (value) => {
    if (!/^\d+$/.test(value) || Number(value) < min || Number(value) > max) {
      throw new InvalidArgumentError(`expected a whole number from ${min} to ${max}`);
    }
    return Number(value);
  };
}

/** A commander parser for a queue name (App Engine's rule). */
export function queueName(value: string): string {
  if (!QUEUE_NAME_PATTERN.test(value))
    throw new InvalidArgumentError('a queue name is 1 to 100 letters, digits and hyphens');
  return value;
}

/** A commander parser for one task name (`taskqueue get`). */
export function taskName(value: string): string {
  return taskNames(value)[0]!;
}

/** A commander parser for task names (variadic: collects them). */
export function taskNames(value: string, previous: string[] = []): string[] {
  if (!TASK_NAME_PATTERN.test(value))
    throw new InvalidArgumentError(`"${value}" is not a task name (letters, digits, _ and -; 1 to 500)`);
  return [...previous, value];
}
