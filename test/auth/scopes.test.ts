import { describe, expect, it } from 'vitest';
import {
  DEFAULT_SCOPE_ALIASES,
  expandScopes,
  scopesAllowing,
  TASKQUEUE_CONSUMER_SCOPE,
  TASKQUEUE_SCOPE,
} from '../../src/auth/scopes.js';
import { QUEUE_ACTIONS } from './acl-matrix.js';

describe('scopes', () => {
  it('let only the full scope insert, and either scope do the rest', () => {
    for (const action of QUEUE_ACTIONS) {
      expect(scopesAllowing(action), action).toEqual(
        action === 'task.insert' ? [TASKQUEUE_SCOPE] : [TASKQUEUE_SCOPE, TASKQUEUE_CONSUMER_SCOPE],
      );
    }
  });

  it('expand aliases in scope strings and scp arrays, keeping unknown names and dropping duplicates', () => {
    expect(expandScopes('openid  taskqueue taskqueue', DEFAULT_SCOPE_ALIASES)).toEqual(['openid', TASKQUEUE_SCOPE]);
    expect(expandScopes(['taskqueue.consumer', 7, ''], DEFAULT_SCOPE_ALIASES)).toEqual([TASKQUEUE_CONSUMER_SCOPE]);
    expect(expandScopes('https://www.googleapis.com/auth/cloud-taskqueue', DEFAULT_SCOPE_ALIASES)).toEqual([
      TASKQUEUE_SCOPE,
    ]);
    expect(expandScopes(undefined, DEFAULT_SCOPE_ALIASES)).toEqual([]);
    // Alias lookup is by own property only.
    expect(expandScopes('constructor toString', DEFAULT_SCOPE_ALIASES)).toEqual(['constructor', 'toString']);
  });
});
