import { describe, expect, it } from 'vitest';
import { parseQueueYaml } from '../../src/config/parse-queue-yaml.js';
import { logQueues } from '../../src/core/log-queues.js';
import type { Logger } from '../../src/core/logger.js';

/**
 * The start log's account of each queue. A pull queue with
 * task_retry_limit 0 leases nothing: each task goes to the dead letters at
 * its first lease attempt (App Engine's stub rule). That is rarely what its
 * author meant, so it is a warning, not one more info line among many.
 */
describe('logQueues', () => {
  const capture = () => {
    const lines: { level: string; fields: object; message: string }[] = [];
    const record = (level: string) => (fields: object, message?: string) =>
      void lines.push({ level, fields, message: message ?? '' });
    const logger: Logger = {
      debug: record('debug'),
      info: record('info'),
      warn: record('warn'),
      error: record('error'),
      child: () => logger,
    };
    return { lines, logger };
  };
  const facts = { role: 'own', wrote: true, revision: 1, routes: new Map(), cronJobs: [] } as const;

  it('warns of a pull queue with task_retry_limit 0, saying its tasks go to the dead letters; other queues stay at info', () => {
    const config = parseQueueYaml(
      [
        'queue:',
        '- name: doomed',
        '  mode: pull',
        '  retry_parameters: {task_retry_limit: 0}',
        '- name: leased',
        '  mode: pull',
        '  retry_parameters: {task_retry_limit: 3}',
        '- name: once',
        '  rate: 1/s',
        '  retry_parameters: {task_retry_limit: 0}',
        '',
      ].join('\n'),
      'queue.yaml',
    );
    const { lines, logger } = capture();
    logQueues(logger, config, facts);
    const about = (queue: string) => lines.filter((line) => (line.fields as { queue?: string }).queue === queue);

    const doomed = about('doomed');
    expect(doomed).toHaveLength(1);
    expect(doomed[0]!.level).toBe('warn');
    expect(doomed[0]!.message).toContain('queue doomed: pull');
    expect(doomed[0]!.message).toContain('task_retry_limit 0');
    expect(doomed[0]!.message).toContain('dead letters at its first lease attempt');

    expect(about('leased').map((line) => line.level)).toEqual(['info']);
    // A push queue with a limit of 0 delivers each task once: nothing to warn of.
    expect(about('once').map((line) => line.level)).toEqual(['info']);
  });
});
