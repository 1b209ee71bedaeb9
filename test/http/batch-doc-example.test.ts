import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { pullQueue } from '../helpers/configs.js';
import { parseBatchReply, sendBatch } from './batch-helpers.js';
import { b64, openHarness, PROJECT, type Harness } from './harness.js';

/** docs/rest-batch.md's example batch, sent as written (its project renamed to the test's). */

const DOC = readFileSync(new URL('../../docs/rest-batch.md', import.meta.url), 'utf8');

/** The first ```http block after the heading "## The batch endpoint": request headers, then the body. */
function docExample(): { headers: Record<string, string>; body: string } {
  const section = DOC.slice(DOC.indexOf('## The batch endpoint'));
  const block = /```http\n([\s\S]*?)```/.exec(section)?.[1];
  if (!block) throw new Error('docs/rest-batch.md: no http block after "## The batch endpoint"');
  const [head = '', ...rest] = block.split('\n\n');
  const headers: Record<string, string> = {};
  for (const line of head.split('\n').slice(1)) {
    const colon = line.indexOf(':');
    headers[line.slice(0, colon).toLowerCase()] = line.slice(colon + 1).trim();
  }
  // The doc shows a batch as it goes on the wire: CRLF line ends.
  const body = rest.join('\n\n').replaceAll('s~myapp', PROJECT).replaceAll('\n', '\r\n');
  return { headers, body };
}

describe("docs/rest-batch.md's example", () => {
  let h: Harness;
  afterEach(async () => h.close());

  it('is a valid batch: each part answers as it says, Content-Length included', async () => {
    h = await openHarness('postgres', { queues: [pullQueue('pullq')] });
    await h.insert({ id: 't1', payloadBase64: b64('x') }, 'pullq');
    const { headers, body } = docExample();
    const boundary = /boundary=(\S+)/.exec(headers['content-type'] ?? '')?.[1];
    expect(boundary).toBeDefined();
    // The doc's bearer token is a placeholder: the harness opens access to everyone.
    const parts = parseBatchReply(await sendBatch(h.app, body, { boundary: boundary! }));
    expect(parts.map((part) => [part.contentId, part.status])).toEqual([
      ['<response-item1:12930812@consumer.example.com>', 200],
      ['<response-item2:12930812@consumer.example.com>', 200],
    ]);
    expect(parts[1]!.json).toMatchObject({ kind: 'taskqueues#task', id: 't9', payloadBase64: 'aGVsbG8=' });
    expect(await h.t.sql(`select name from ${h.t.schema}.tasks`)).toEqual([{ name: 't9' }]);
  });
});
