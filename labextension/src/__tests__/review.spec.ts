import { diffLines } from '../diffLines';
import { parseResult, parseRevealCell, parseReview } from '../review';

describe('parseReview', () => {
  it('takes the marks of a run and skips malformed cells', () => {
    expect(
      parseReview({
        type: 'review',
        run_id: 7,
        cells: [
          {
            id: 'ab12',
            kind: 'changed',
            before: 'x = 1',
            after: 'x = 2',
            cell_type: 'code',
            index: null
          },
          {
            id: 'cd34',
            kind: 'deleted',
            before: 'y',
            after: null,
            cell_type: 'markdown',
            index: 3
          },
          { id: 'ef56', kind: 'exploded' },
          { kind: 'added' },
          'not a cell'
        ]
      })
    ).toEqual({
      run_id: 7,
      cells: [
        {
          id: 'ab12',
          kind: 'changed',
          before: 'x = 1',
          after: 'x = 2',
          cell_type: 'code',
          index: null
        },
        { id: 'cd34', kind: 'deleted', before: 'y', after: null, cell_type: 'markdown', index: 3 }
      ]
    });
  });

  it.each([null, 'review', { type: 'response' }, { type: 'review', run_id: '7' }])(
    'ignores %j',
    data => {
      expect(parseReview(data)).toBeNull();
    }
  );
});

describe('parseResult', () => {
  it('reads a refusal with its reason', () => {
    expect(
      parseResult({
        type: 'review_result',
        request_id: 'r1',
        cell_id: 'ab12',
        outcome: 'refused',
        reason: 'it changed after the agent edited it'
      })
    ).toEqual({
      request_id: 'r1',
      cell_id: 'ab12',
      outcome: 'refused',
      reason: 'it changed after the agent edited it'
    });
  });

  it('treats an unknown outcome as refused, never as done', () => {
    expect(
      parseResult({ type: 'review_result', request_id: 'r2', cell_id: 'x', outcome: 'maybe' })
        ?.outcome
    ).toBe('refused');
  });
});

describe('diffLines', () => {
  it('marks only the lines that differ, keeping the common head and tail', () => {
    expect(diffLines('a\nb\nc', 'a\nB\nc')).toEqual(['  a', '- b', '+ B', '  c']);
  });

  it('shows an added cell as all new and a deleted one as all gone', () => {
    expect(diffLines(null, 'x = 1\ny = 2')).toEqual(['+ x = 1', '+ y = 2']);
    expect(diffLines('x = 1', null)).toEqual(['- x = 1']);
  });
});

describe('parseRevealCell', () => {
  it('takes the cell id of a reveal_cell message and nothing else', () => {
    expect(parseRevealCell({ type: 'reveal_cell', cell_id: 'a1' })).toBe('a1');
    expect(parseRevealCell({ type: 'reveal_cell' })).toBeNull();
    expect(parseRevealCell({ type: 'reveal', pending_id: 'p1' })).toBeNull();
    expect(parseRevealCell(null)).toBeNull();
  });
});
