import { describe, expect, it } from 'vitest';
import { HeldTask, TaskContext } from '../../src/core/worker/held-task.js';
import { LeaseLostError } from '../../src/core/worker/worker-errors.js';

const task = { name: 't', etaUsec: 5, retryCount: 1 };

describe('a held task', () => {
  it('makes its signal only when read; read after the loss, the signal is aborted already with the reason', () => {
    const held = new HeldTask(task, 1_000, 60_000);
    expect(held).toMatchObject({ token: 5, expiresAt: 61_000, renewAt: 31_000 });
    const reason = new LeaseLostError('t', 'it could not be renewed');
    held.abort(reason);
    const signal = new TaskContext(held).signal;
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
  });

  it('a signal read before the loss aborts at the loss, once', () => {
    const held = new HeldTask(task, 0, 1_000);
    const signal = new TaskContext(held).signal;
    const seen: unknown[] = [];
    signal.addEventListener('abort', () => seen.push(signal.reason));
    const first = new LeaseLostError('t', 'first');
    held.abort(first);
    held.abort(new LeaseLostError('t', 'second'));
    expect(seen).toEqual([first]);
  });
});
