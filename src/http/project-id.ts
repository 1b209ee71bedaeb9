/**
 * App Engine wrote an application id with a one-letter partition prefix:
 * `s~app` (US), `e~app` (EU). Clients send either form, or the bare id
 * (hawkeye tests both), so both sides are compared without it.
 */
const PARTITION_PREFIX = /^[a-z]~/;

/** The application id without its partition prefix. */
export function bareProjectId(project: string): string {
  return project.replace(PARTITION_PREFIX, '');
}

/** True when a path's `{project}` names this service's project (`app`, `s~app` or `e~app`). */
export function isOwnProject(pathProject: string, ownProject: string): boolean {
  return bareProjectId(pathProject) === bareProjectId(ownProject);
}

/**
 * True when a body's `queueName` names the queue of the path: the short
 * form (`pullq`) or the full one (`projects/s~app/taskqueues/pullq`), with
 * this project.
 */
export function isSameQueueName(queueName: string, queue: string, ownProject: string): boolean {
  if (queueName === queue) return true;
  const match = /^projects\/([^/]+)\/taskqueues\/([^/]+)$/.exec(queueName);
  return match !== null && match[2] === queue && isOwnProject(match[1] as string, ownProject);
}
