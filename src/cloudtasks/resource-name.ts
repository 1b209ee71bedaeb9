import { QueueError } from '../core/errors.js';

/**
 * Cloud Tasks' resource names: `projects/P/locations/L` (a parent),
 * `.../queues/Q` and `.../queues/Q/tasks/T`. A queue ID is what App Engine's
 * queue names already are (letters, digits, hyphens, 1 to 100), so every
 * queue.xml queue has a Cloud Tasks name; a task ID adds the underscore and
 * runs to 500 characters, as Cloud Tasks documents.
 */
export interface LocationPath {
  readonly project: string;
  readonly location: string;
}

export interface QueuePath extends LocationPath {
  readonly queue: string;
}

export interface TaskPath extends QueuePath {
  readonly task: string;
}

export const QUEUE_ID = /^[A-Za-z0-9-]{1,100}$/;
export const TASK_ID = /^[A-Za-z0-9_-]{1,500}$/;
/** Google's project IDs, and the older domain-scoped form (`example.com:project`). */
const PROJECT_ID = /^(?:[a-z][a-z0-9.-]{0,62}:)?[a-z0-9][a-z0-9-]{0,62}$/;
const LOCATION_ID = /^[a-z0-9-]{1,63}$/;

const LOCATION_FORM = 'projects/<PROJECT_ID>/locations/<LOCATION_ID>';
const QUEUE_FORM = `${LOCATION_FORM}/queues/<QUEUE_ID>`;
const TASK_FORM = `${QUEUE_FORM}/tasks/<TASK_ID>`;

function refuse(what: string, form: string, field: string, text: unknown, why = ''): never {
  throw new QueueError(
    'INVALID_REQUEST',
    `${what} name must be formatted: "${form}"${why ? ` (${why})` : ''}; got ${JSON.stringify(text)}`,
    { field },
  );
}

/** The segments of `name` when it has the form's literal words at the even places. */
function segments(name: unknown, words: readonly string[]): string[] | null {
  if (typeof name !== 'string') return null;
  const parts = name.split('/');
  if (parts.length !== words.length * 2) return null;
  for (let i = 0; i < words.length; i++) if (parts[2 * i] !== words[i]) return null;
  return parts.filter((_, i) => i % 2 === 1);
}

/** The ID at each place of a name and what it may be, in order. */
const IDS = [
  { pattern: PROJECT_ID, why: 'not a project ID' },
  { pattern: LOCATION_ID, why: 'not a location ID' },
  { pattern: QUEUE_ID, why: 'a queue ID is 1 to 100 letters, digits or hyphens' },
  { pattern: TASK_ID, why: 'a task ID is 1 to 500 letters, digits, hyphens or underscores' },
] as const;

/** The IDs of `name` in the form `words` gives; a refusal cites `what`'s form. */
function parseName(name: unknown, words: readonly string[], what: string, form: string, field: string): string[] {
  const parts = segments(name, words);
  if (parts === null) return refuse(what, form, field, name);
  parts.forEach((id, i) => {
    const rule = IDS[i]!;
    if (!rule.pattern.test(id)) refuse(what, form, field, name, rule.why);
  });
  return parts;
}

export function parseLocationName(name: unknown, field = 'parent'): LocationPath {
  const [project, location] = parseName(name, ['projects', 'locations'], 'Location', LOCATION_FORM, field);
  return { project: project!, location: location! };
}

export function parseQueueName(name: unknown, field = 'name'): QueuePath {
  const words = ['projects', 'locations', 'queues'];
  const [project, location, queue] = parseName(name, words, 'Queue', QUEUE_FORM, field);
  return { project: project!, location: location!, queue: queue! };
}

export function parseTaskName(name: unknown, field = 'name'): TaskPath {
  const words = ['projects', 'locations', 'queues', 'tasks'];
  const [project, location, queue, task] = parseName(name, words, 'Task', TASK_FORM, field);
  return { project: project!, location: location!, queue: queue!, task: task! };
}

export function locationName(path: LocationPath): string {
  return `projects/${path.project}/locations/${path.location}`;
}

export function queueName(path: QueuePath): string {
  return `${locationName(path)}/queues/${path.queue}`;
}

export function taskName(path: TaskPath): string {
  return `${queueName(path)}/tasks/${path.task}`;
}
