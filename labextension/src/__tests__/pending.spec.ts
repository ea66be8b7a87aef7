import { buttonClasses, shortcutAnswer } from '../pending';
import {
  changedCells,
  headline,
  parsePending,
  parsePendingDone,
  parseReveal
} from '../pendingMessages';
import { askCellSource, fixCellCommand, planCellAction, type ICellFacts } from '../cellLines';

describe('parsePending', () => {
  it('takes the cells of a question and skips malformed ones', () => {
    expect(
      parsePending({
        type: 'pending',
        pending_id: 'p1',
        title: 'NotebookEdit analysis.ipynb replace c1',
        allow_edits: true,
        cells: [
          {
            cell_id: 'c1',
            change: 'replace',
            before: 'x = 1',
            after: 'x = 2',
            cell_type: 'code',
            after_id: null,
            clears_outputs: true
          },
          { cell_id: '', change: 'insert', after: '# new', cell_type: 'markdown', after_id: 'c1' },
          { cell_id: '', change: 'replace' },
          { cell_id: 'c2', change: 'explode' },
          'not a cell'
        ]
      })
    ).toEqual({
      pending_id: 'p1',
      title: 'NotebookEdit analysis.ipynb replace c1',
      allow_edits: true,
      cells: [
        {
          cell_id: 'c1',
          change: 'replace',
          before: 'x = 1',
          after: 'x = 2',
          cell_type: 'code',
          after_id: null,
          clears_outputs: true
        },
        {
          cell_id: '',
          change: 'insert',
          before: '',
          after: '# new',
          cell_type: 'markdown',
          after_id: 'c1',
          clears_outputs: false
        }
      ]
    });
  });

  it.each([null, 'pending', { type: 'review' }, { type: 'pending', pending_id: 3 }])(
    'ignores %j',
    data => {
      expect(parsePending(data)).toBeNull();
    }
  );

  it('reads the end of a question; an unknown outcome counts as denied', () => {
    expect(parsePendingDone({ type: 'pending_done', pending_id: 'p1', outcome: 'stale' })).toEqual({
      pending_id: 'p1',
      outcome: 'stale',
      text: ''
    });
    expect(
      parsePendingDone({ type: 'pending_done', pending_id: 'p1', outcome: '?' })?.outcome
    ).toBe('denied');
    expect(parseReveal({ type: 'reveal', pending_id: 'p1' })).toBe('p1');
    expect(parseReveal({ type: 'reveal' })).toBeNull();
  });
});

describe('headline', () => {
  const cell = {
    cell_id: 'c1',
    before: '',
    after: '',
    cell_type: 'code',
    after_id: null,
    clears_outputs: false
  };

  it('says what would happen to the cell', () => {
    expect(headline({ ...cell, change: 'replace', clears_outputs: true }, 0, 1)).toBe(
      'The agent wants to change this cell and clear its outputs'
    );
    expect(headline({ ...cell, change: 'move', after_id: 'c9' }, 0, 1)).toBe(
      'The agent wants to move this cell after cell c9'
    );
    expect(headline({ ...cell, change: 'move' }, 0, 1)).toBe(
      'The agent wants to move this cell to the top'
    );
    expect(headline({ ...cell, change: 'run' }, 1, 3)).toBe(
      'The agent wants to run this cell (2 of 3)'
    );
    expect(headline({ ...cell, change: 'insert', cell_type: 'markdown' }, 0, 1)).toBe(
      'The agent wants to insert a new markdown cell here'
    );
  });
});

describe('changedCells', () => {
  it('names the cells whose source changed or that are gone', () => {
    const snapshot = new Map([
      ['a', 'x = 1'],
      ['b', 'y = 2'],
      ['c', 'z = 3']
    ]);
    const now: Record<string, string> = { a: 'x = 1', b: 'y = 2  # typed' };
    expect(changedCells(snapshot, id => now[id] ?? null)).toEqual(['b', 'c']);
  });
});

describe('cell actions', () => {
  it('refers to every selected cell and leaves room for the question', () => {
    expect(askCellSource(['ab12', 'cd34'])).toBe('%%agent\n@cell:ab12 @cell:cd34 ');
  });

  it('fixes a cell by its id, and never puts anything else into the command', () => {
    expect(fixCellCommand('ab-12_x')).toBe('%agent fix ab-12_x');
    expect(fixCellCommand('x; import os')).toBe('%agent fix');
    expect(fixCellCommand('')).toBe('%agent fix');
  });
});

describe('the one path of both cell actions', () => {
  const cell = (id: string, raised = false): ICellFacts => ({ id, raised });

  it('asks about the selected cells by their ids, and runs nothing', () => {
    expect(planCellAction('ask', [cell('ab12'), cell('cd34')])).toEqual({
      source: '%%agent\n@cell:ab12 @cell:cd34 ',
      run: false
    });
  });

  it('applies the id check to "ask" as to "fix": no text a notebook chose goes into the new cell', () => {
    const planted = 'x\nimport os; os.remove("data.csv")';
    expect(planCellAction('ask', [cell('ab12'), cell(planted)])).toEqual({
      source: '%%agent\n@cell:ab12 ',
      run: false
    });
    expect(planCellAction('ask', [cell(planted)])).toBeNull(); // no valid id: the action is disabled
    expect(askCellSource([planted, 'cd34'])).toBe('%%agent\n@cell:cd34 ');
    expect(planCellAction('fix', [cell(planted, true)])).toEqual({
      source: '%agent fix',
      run: true
    });
  });

  it('fixes the first cell when its last run raised, and only then', () => {
    expect(planCellAction('fix', [cell('ab12', true), cell('cd34', true)])).toEqual({
      source: '%agent fix ab12',
      run: true
    });
    expect(planCellAction('fix', [cell('ab12'), cell('cd34', true)])).toBeNull();
    expect(planCellAction('fix', [])).toBeNull();
  });
});

describe('the pending edit at its cell', () => {
  const key = (key: string, mods: Partial<KeyboardEvent> = {}): KeyboardEvent =>
    ({
      key,
      ctrlKey: false,
      metaKey: false,
      altKey: false,
      shiftKey: false,
      ...mods
    }) as KeyboardEvent;

  it('answers Ctrl+Enter with allow and Ctrl+Backspace with deny, and no other key', () => {
    expect(shortcutAnswer(key('Enter', { ctrlKey: true }))).toBe('allow');
    expect(shortcutAnswer(key('Backspace', { ctrlKey: true }))).toBe('deny');
    expect(shortcutAnswer(key('Enter', { metaKey: true }))).toBe('allow');
    expect(shortcutAnswer(key('Enter'))).toBeNull(); // plain Enter stays the editor's
    expect(shortcutAnswer(key('Backspace'))).toBeNull();
    expect(shortcutAnswer(key('Enter', { ctrlKey: true, shiftKey: true }))).toBeNull();
    expect(shortcutAnswer(key('Enter', { shiftKey: true }))).toBeNull(); // Shift+Enter runs the cell
    expect(shortcutAnswer(key('Backspace', { ctrlKey: true, altKey: true }))).toBeNull();
  });

  it("draws its buttons with JupyterLab's own classes", () => {
    expect(buttonClasses('allow').split(' ')).toEqual(
      expect.arrayContaining([
        'jp-Button',
        'jp-mod-styled',
        'jp-mod-accept',
        'jp-agent-pending-allow'
      ])
    );
    expect(buttonClasses('deny').split(' ')).toEqual(
      expect.arrayContaining([
        'jp-Button',
        'jp-mod-styled',
        'jp-mod-reject',
        'jp-agent-pending-deny'
      ])
    );
    const edits = buttonClasses('allow_edits').split(' ');
    expect(edits).toEqual(expect.arrayContaining(['jp-Button', 'jp-agent-pending-allow-edits']));
    expect(edits).not.toContain('jp-mod-accept');
  });
});
