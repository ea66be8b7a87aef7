import { samePath } from '../paths';
import { minimalEdit } from '../text';
import { parseRequest } from '../validate';

function applyEdit(before: string, after: string): string {
  const edit = minimalEdit(before, after);
  return before.slice(0, edit.start) + edit.text + before.slice(edit.end);
}

describe('minimalEdit', () => {
  it.each([
    ['', ''],
    ['', 'new'],
    ['old', ''],
    ['x = 1\ny = 2\n', 'x = 1\ny = 3\n'],
    ['aaa', 'aaaa'],
    ['abcabc', 'abc'],
    ['smile 😀 here', 'smile 😁 here'],
    ['😀', '😀😀'],
    ['a😀b', 'ab']
  ])('turns %j into %j', (before, after) => {
    expect(applyEdit(before, after)).toBe(after);
  });

  it('changes only the differing middle', () => {
    expect(minimalEdit('x = 1\ny = 2\nz = 3', 'x = 1\ny = 20\nz = 3')).toEqual({
      start: 11,
      end: 11,
      text: '0'
    });
  });

  it('never splits a surrogate pair', () => {
    const edit = minimalEdit('a😀b', 'a😁b');
    expect(edit).toEqual({ start: 1, end: 3, text: '😁' });
  });
});

describe('parseRequest', () => {
  it('accepts a request', () => {
    const parsed = parseRequest({ type: 'request', request_id: 'r1', ops: [{ op: 'get_cells' }] });
    expect(parsed).toEqual({
      kind: 'request',
      request: { type: 'request', request_id: 'r1', ops: [{ op: 'get_cells' }] }
    });
  });

  it('keeps the client_id a request is addressed to', () => {
    const parsed = parseRequest({ type: 'request', request_id: 'r', ops: [], client_id: 'c1' });
    expect(parsed.kind === 'request' && parsed.request.client_id).toBe('c1');
  });

  it('answers a request without a list of ops with INVALID_REQUEST', () => {
    expect(parseRequest({ type: 'request', request_id: 'r2', ops: 'get_cells' })).toEqual({
      kind: 'invalid',
      response: {
        type: 'response',
        request_id: 'r2',
        results: [],
        error: 'INVALID_REQUEST',
        message: 'ops must be a list of operations, got the string "get_cells"'
      }
    });
  });

  it('answers a request without an id with request_id null', () => {
    const parsed = parseRequest({ type: 'request', ops: [] });
    expect(parsed.kind === 'invalid' && parsed.response.request_id).toBeNull();
  });

  it('ignores messages of other types', () => {
    expect(parseRequest({ type: 'ping' })).toEqual({ kind: 'ignore' });
    expect(parseRequest('hello')).toEqual({ kind: 'ignore' });
  });
});

describe('samePath', () => {
  it.each([
    ['work/a.ipynb', 'work/a.ipynb', true],
    ['work/a.ipynb', '/work/a.ipynb', true],
    ['work/a.ipynb', '/home/me/work/a.ipynb', true],
    ['work/a.ipynb', 'work/b.ipynb', false],
    ['a.ipynb', '/srv/data/ba.ipynb', false],
    ['', '/x.ipynb', false]
  ])('%j vs %j -> %s', (panel, kernel, expected) => {
    expect(samePath(panel, kernel)).toBe(expected);
  });
});
