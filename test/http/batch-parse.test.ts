import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseBatch, type BatchPart } from '../../src/http/batch/batch-parts.js';
import { innerRequest, type InnerRequest } from '../../src/http/batch/inner-request.js';
import { responseContentId, writeMultipart } from '../../src/http/batch/batch-response.js';
import { multipartBoundary } from '../../src/http/batch/multipart.js';

const parse = (text: string, boundary = 'b') => parseBatch(boundary, Buffer.from(text));

describe('reading a batch body', () => {
  it('reads boundaries quoted or not, and refuses other media types', () => {
    expect(multipartBoundary('multipart/mixed; boundary=batch_foobarbaz')).toBe('batch_foobarbaz');
    expect(multipartBoundary('Multipart/Mixed;charset=utf-8; Boundary="a b=c"')).toBe('a b=c');
    expect(() => multipartBoundary('multipart/form-data; boundary=x')).toThrow(/multipart\/mixed/);
    expect(() => multipartBoundary('multipart/mixed; boundary=""')).toThrow(/boundary/);
    expect(() => multipartBoundary(`multipart/mixed; boundary=${'x'.repeat(71)}`)).toThrow(/boundary/);
  });

  it('ignores the preamble, transport padding and the epilogue; keeps Content-ID verbatim', () => {
    const parts = parse(
      'This is the preamble.\r\n--b  \r\nContent-Type: application/http; msgtype=request\r\nContent-ID: <x+1>\r\n\r\n' +
        'GET /taskqueue/v1beta2/projects/p/taskqueues/q/tasks?a=b HTTP/1.1\r\nAccept: */*\r\nX-Two: 1\r\nx-two: 2\r\n\r\n' +
        '\r\n--b--\r\nepilogue\r\n--b\r\n',
    );
    expect(parts).toEqual([
      {
        contentId: '<x+1>',
        method: 'GET',
        target: '/taskqueue/v1beta2/projects/p/taskqueues/q/tasks?a=b',
        headers: new Map([
          ['accept', '*/*'],
          ['x-two', '1, 2'],
        ]),
        body: Buffer.alloc(0),
      },
    ]);
  });

  it('takes Content-Length bytes of body, or the rest less trailing line ends', () => {
    const [exact, rest, lf] = parse(
      '--b\r\nContent-Type: application/http\r\n\r\nPOST /x\r\nContent-Length: 4\r\n\r\n{}\r\n\r\n\r\n' +
        '--b\r\nContent-Type: application/http\r\n\r\n\r\nPOST /y HTTP/1.0\r\nContent-Type: application/json\r\n\r\n{"a":\r\n1}\r\n\r\n' +
        '--b\nContent-Type: application/http\n\nPATCH /z\n\n{"b":2}\n\n--b--',
    );
    expect(exact!.body.toString()).toBe('{}\r\n');
    expect(exact!.headers.has('content-length')).toBe(false);
    expect(rest!.body.toString()).toBe('{"a":\r\n1}');
    expect(rest!.method).toBe('POST');
    expect(lf!.body.toString()).toBe('{"b":2}');
  });

  it('keeps a body that holds the boundary text not at the start of a line', () => {
    const [part] = parse('--b\r\nContent-Type: application/http\r\n\r\nPOST /x\r\n\r\n{"s":"--b"}\r\n--b--\r\n');
    expect(part!.body.toString()).toBe('{"s":"--b"}');
  });
});

describe("resolving a call's target", () => {
  const batch = { origin: 'http://127.0.0.1:8080', query: null, headers: new Map<string, string>() };
  const part = (target: string): BatchPart => ({
    contentId: undefined,
    method: 'GET',
    target,
    headers: new Map(),
    body: Buffer.alloc(0),
  });

  it('reads a UTF-8 request line, and resolves paths as the URL parser does', () => {
    const [utf8] = parse(
      '--b\r\nContent-Type: application/http\r\n\r\nDELETE /taskqueue/v1beta2/x/é?q=ü HTTP/1.1\r\n\r\n--b--',
    );
    expect(utf8!.target).toBe('/taskqueue/v1beta2/x/é?q=ü');
    expect(innerRequest(utf8!, batch)).toMatchObject({ path: '/taskqueue/v1beta2/x/%C3%A9', search: '?q=%C3%BC' });
    expect(innerRequest(part('/taskqueue/v1beta2/a/./b/../c?'), batch)).toMatchObject({
      path: '/taskqueue/v1beta2/a/c',
      search: '',
    });
  });

  it('takes the shortcut past the URL parser only where the parser would change nothing (property)', () => {
    const chars = fc.constantFrom(...'abcXYZ019-._~!$&()*+,;=:@/?%#\'"<>`{}\\ é'.split(''));
    fc.assert(
      fc.property(fc.array(chars, { maxLength: 30 }), (tail) => {
        const target = `/taskqueue/v1beta2/${tail.join('')}`;
        const url = new URL(target, batch.origin);
        const resolved = innerRequest(part(target), batch);
        if (!url.pathname.startsWith('/taskqueue/v1beta2/')) return;
        expect(resolved).toMatchObject({ path: url.pathname, search: url.search });
        expect(new URL((resolved as InnerRequest).href).href).toBe(url.href.replace(/#.*$/, ''));
      }),
      { numRuns: 2000 },
    );
  });
});

describe('writing a batch response', () => {
  it("answers Content-IDs with response- inside the angle brackets (Google's form)", () => {
    expect(responseContentId('<item1:12930812@barnyard.example.com>')).toBe(
      '<response-item1:12930812@barnyard.example.com>',
    );
    expect(responseContentId('item1')).toBe('response-item1');
  });

  it('writes each answer as a whole HTTP/1.1 message with its length, in order', () => {
    const { boundary, body } = writeMultipart(
      [
        { status: 200, headers: [], body: '' },
        { status: 404, headers: [['content-type', 'application/json']], body: Buffer.from('{"é":1}') },
      ],
      ['<a>', undefined],
    );
    expect(body.toString()).toBe(
      `--${boundary}\r\nContent-Type: application/http\r\nContent-ID: <response-a>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n\r\n` +
        `--${boundary}\r\nContent-Type: application/http\r\n\r\nHTTP/1.1 404 Not Found\r\ncontent-type: application/json\r\ncontent-length: 8\r\n\r\n{"é":1}\r\n` +
        `--${boundary}--\r\n`,
    );
  });
});
