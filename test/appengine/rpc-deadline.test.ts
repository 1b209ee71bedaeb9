import { describe, expect, it } from 'vitest';
import { decodeAnswer, encodeEnvelope } from '../../src/appengine/envelope.js';
import { encodeMessage, messageType } from '../../src/appengine/protocol.js';
import { createRpcHandler } from '../../src/appengine/rpc-handler.js';
import type { TaskQueueHost } from '../../src/appengine/taskqueue-host.js';

describe('the deadline the SDK sends', () => {
  it('answers DEADLINE_EXCEEDED before the SDK gives up, when the call has not finished', async () => {
    // A queue whose lease never answers: only the deadline can end the call.
    const host = { getQueue: () => ({ leaseTasks: () => new Promise(() => {}) }) } as unknown as TaskQueueHost;
    const handler = createRpcHandler({ host });
    const request = encodeMessage(messageType('QueryAndOwnTasksRequest'), {
      queue_name: Buffer.from('q'),
      lease_seconds: 10,
      max_tasks: 1,
    });
    const started = performance.now();
    const response = await handler(
      new Request('http://x/rpc_http', {
        method: 'POST',
        headers: { 'content-type': 'application/octet-stream', 'x-google-rpc-service-deadline': '0.5' },
        body: encodeEnvelope({ service: 'taskqueue', method: 'QueryAndOwnTasks', request }),
      }),
    );
    // The SDK waits its deadline plus one second (DEADLINE_DELTA_SECONDS) before it re-sends.
    expect(performance.now() - started).toBeLessThan(1500);
    expect(response.status).toBe(200);
    expect(decodeAnswer(new Uint8Array(await response.arrayBuffer()))).toMatchObject({ kind: 'rpc_error', code: 12 });
  });
});
