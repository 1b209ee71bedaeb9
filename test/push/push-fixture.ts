import { afterEach } from 'vitest';
import type { PushQueueSettings, QueueConfig } from '../../src/core/queue-config.js';
import type { TaskQueue } from '../../src/core/task-queue.js';
import { serviceConfig } from '../helpers/configs.js';
import { openTestService, type TestEngine, type TestService } from '../helpers/engines.js';
import { pushQueue, startSink, type Sink, type SinkAnswer, type SunkRequest } from '../helpers/push-sink.js';

/** What a push test starts: the sink's answers, and the queues around push queue `h`. */
export interface PushSetup {
  /** How the sink answers (default 200 at once). */
  readonly answer?: (request: SunkRequest, index: number) => SinkAnswer | Promise<SinkAnswer>;
  /** Settings of push queue `h` (it delivers to the sink; unlimited unless given). */
  readonly push?: Partial<PushQueueSettings>;
  /** Other fields of `h` (retry parameters). */
  readonly queue?: Partial<QueueConfig>;
  /** The queues instead of `h` alone, given the sink's URL (`h` is then whatever they name it). */
  readonly queues?: (sinkUrl: string) => QueueConfig[];
  /** More options of the service (dispatch, signing). */
  readonly open?: Parameters<typeof openTestService>[2];
}

/** A started push test: the service on a fresh schema, the sink, queue `h`, and the configuration (for openAnother). */
export interface PushTest {
  readonly t: TestService;
  readonly sink: Sink;
  readonly queue: TaskQueue;
  readonly config: ReturnType<typeof serviceConfig>;
}

/**
 * The setup every push test file shares: call it in a describe, then
 * `const { t, sink, queue } = await push.start(engine, { ... })` in each
 * test. The service and the sink are closed after each test (the service
 * first: its dispatcher may hold a request to the sink).
 */
export function usePushFixture(): { start(engine: TestEngine, setup?: PushSetup): Promise<PushTest> } {
  let t: TestService | undefined;
  let sink: Sink | undefined;
  afterEach(async () => {
    await t?.close();
    await sink?.close();
    t = undefined;
    sink = undefined;
  });
  return {
    async start(engine, setup = {}) {
      sink = await startSink(setup.answer);
      const config = serviceConfig(
        setup.queues ? setup.queues(sink.url) : [pushQueue('h', sink.url, setup.push ?? {}, setup.queue ?? {})],
      );
      t = await openTestService(engine, config, setup.open ?? {});
      return {
        t,
        sink,
        queue: t.service.getQueue(config.queues.some((q) => q.name === 'h') ? 'h' : config.queues[0]!.name),
        config,
      };
    },
  };
}
