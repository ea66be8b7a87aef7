import type * as nbformat from '@jupyterlab/nbformat';

import { applyOps } from '../ops';
import type {
  ICellResult,
  IClearOutputsResult,
  IDeleteResult,
  IGetCellsResult,
  IOpError,
  OpResult
} from '../protocol';
import { FakeDoc } from './fakeDoc';

function only(doc: FakeDoc, op: Record<string, unknown>): OpResult {
  const { results } = applyOps(doc, [op]);
  expect(results).toHaveLength(1);
  return results[0];
}

function ok<T extends OpResult>(result: OpResult): T {
  if (!result.ok) {
    throw new Error(`expected ok, got ${result.error}: ${result.message}`);
  }
  return result as T;
}

function err(result: OpResult): IOpError {
  if (result.ok) {
    throw new Error(`expected an error, got ${JSON.stringify(result)}`);
  }
  return result;
}

describe('get_cells', () => {
  it('lists cells with ids, types, sources, outputs, path and dirty flag', () => {
    const doc = FakeDoc.abc();
    doc.cell('b').outputs = [{ output_type: 'stream', name: 'stdout', text: 'hi\n' }];
    doc.cell('b').executionCount = 3;
    const result = ok<IGetCellsResult>(only(doc, { op: 'get_cells' }));
    expect(result.path).toBe('work/analysis.ipynb');
    expect(result.dirty).toBe(false);
    expect(result.cells.map(c => c.id)).toEqual(['a', 'b', 'c']);
    expect(result.cells[1]).toEqual({
      id: 'b',
      cell_type: 'code',
      source: 'B',
      execution_count: 3,
      outputs: [{ output_type: 'stream', name: 'stdout', text: 'hi\n' }],
      metadata: {}
    });
  });

  it('gives markdown cells no outputs and a null count', () => {
    const doc = new FakeDoc([{ id: 'm', cell_type: 'markdown', source: '# T' }]);
    const result = ok<IGetCellsResult>(only(doc, { op: 'get_cells' }));
    expect(result.cells[0]).toMatchObject({
      cell_type: 'markdown',
      outputs: [],
      execution_count: null
    });
  });

  it('changes nothing', () => {
    const doc = FakeDoc.abc();
    only(doc, { op: 'get_cells' });
    expect(doc.changes).toEqual([]);
  });
});

describe('insert', () => {
  it('with after_id null puts the cell at the top', () => {
    const doc = FakeDoc.abc();
    const result = ok<ICellResult>(
      only(doc, { op: 'insert', after_id: null, cell_type: 'markdown', source: '# Title' })
    );
    expect(result.index).toBe(0);
    expect(doc.ids()[0]).toBe(result.id);
    expect(doc.cell(result.id).cellType).toBe('markdown');
    expect(doc.cell(result.id).getSource()).toBe('# Title');
  });

  it('after an id puts the cell right after it', () => {
    const doc = FakeDoc.abc();
    const result = ok<ICellResult>(
      only(doc, { op: 'insert', after_id: 'b', cell_type: 'code', source: 'x = 1' })
    );
    expect(result.index).toBe(2);
    expect(doc.ids()).toEqual(['a', 'b', result.id, 'c']);
  });

  it('is undoable and marks the new cell as touched', () => {
    const doc = FakeDoc.abc();
    const { results, touched } = applyOps(doc, [
      { op: 'insert', after_id: 'c', cell_type: 'code', source: '' }
    ]);
    expect(doc.changes).toEqual([{ undoable: true }]);
    expect(touched).toEqual([(results[0] as ICellResult).id]);
  });

  it('after an unknown id fails and inserts nothing', () => {
    const doc = FakeDoc.abc();
    const error = err(only(doc, { op: 'insert', after_id: 'zz', cell_type: 'code', source: '' }));
    expect(error.error).toBe('CELL_NOT_FOUND');
    expect(doc.ids()).toEqual(['a', 'b', 'c']);
  });

  it('with an id of the kernel’s choice lets later ops of the request address the cell', () => {
    const doc = FakeDoc.abc();
    const { results } = applyOps(doc, [
      { op: 'insert', after_id: 'c', cell_type: 'code', source: 'x', id: 'agent-1' },
      { op: 'set_outputs', id: 'agent-1', outputs: [], execution_count: 1 }
    ]);
    expect(results.map(r => r.ok)).toEqual([true, true]);
    expect(doc.ids()).toEqual(['a', 'b', 'c', 'agent-1']);
  });

  it('refuses an id that is taken or not an nbformat id', () => {
    const doc = FakeDoc.abc();
    const { results } = applyOps(doc, [
      { op: 'insert', after_id: null, cell_type: 'code', source: '', id: 'a' },
      { op: 'insert', after_id: null, cell_type: 'code', source: '', id: 'has space' }
    ]);
    expect(results.map(r => (r.ok ? 'ok' : r.error))).toEqual(['CELL_EXISTS', 'INVALID_OP']);
    expect(doc.ids()).toEqual(['a', 'b', 'c']);
  });

  it('is visible to the next op of the same request', () => {
    const doc = FakeDoc.abc();
    const { results } = applyOps(doc, [
      { op: 'insert', after_id: 'a', cell_type: 'code', source: 'new' },
      { op: 'get_cells' }
    ]);
    const listed = ok<IGetCellsResult>(results[1]).cells.map(c => c.source);
    expect(listed).toEqual(['A', 'new', 'B', 'C']);
  });
});

describe('replace', () => {
  it('with a matching expect replaces the source', () => {
    const doc = FakeDoc.abc();
    const result = ok<ICellResult>(
      only(doc, { op: 'replace', id: 'b', source: 'B2', expect: 'B' })
    );
    expect(result).toEqual({ ok: true, id: 'b', index: 1 });
    expect(doc.cell('b').getSource()).toBe('B2');
  });

  it('with expect null skips the stale check', () => {
    const doc = FakeDoc.abc();
    ok(only(doc, { op: 'replace', id: 'b', source: 'B2', expect: null }));
    expect(doc.cell('b').getSource()).toBe('B2');
  });

  it('with a stale expect refuses and keeps the user’s text', () => {
    const doc = FakeDoc.abc();
    doc.cell('b').source = 'B typed by the user';
    const error = err(only(doc, { op: 'replace', id: 'b', source: 'B2', expect: 'B' }));
    expect(error.error).toBe('STALE_READ');
    expect(error.current).toBe('B typed by the user');
    expect(error.message).toContain("'b'");
    expect(doc.cell('b').getSource()).toBe('B typed by the user');
    expect(doc.changes).toEqual([]);
  });

  it('with the same source makes no change and no mark', () => {
    const doc = FakeDoc.abc();
    const { touched } = applyOps(doc, [{ op: 'replace', id: 'b', source: 'B', expect: 'B' }]);
    expect(doc.changes).toEqual([]);
    expect(touched).toEqual([]);
  });
});

describe('delete and restore', () => {
  function withRichCell(): FakeDoc {
    const doc = FakeDoc.abc();
    const b = doc.cell('b');
    b.outputs = [
      {
        output_type: 'execute_result',
        execution_count: 7,
        data: { 'text/plain': '42' },
        metadata: {}
      }
    ];
    b.executionCount = 7;
    b.metadata = { tags: ['keep'] };
    return doc;
  }

  it('delete returns the whole cell so it can be restored', () => {
    const doc = withRichCell();
    const result = ok<IDeleteResult>(only(doc, { op: 'delete', id: 'b', expect: 'B' }));
    expect(doc.ids()).toEqual(['a', 'c']);
    expect(result.index).toBe(1);
    expect(result.cell).toEqual({
      id: 'b',
      cell_type: 'code',
      source: 'B',
      metadata: { tags: ['keep'] },
      execution_count: 7,
      outputs: [
        {
          output_type: 'execute_result',
          execution_count: 7,
          data: { 'text/plain': '42' },
          metadata: {}
        }
      ]
    });
  });

  it('restore puts the cell back with the same id, outputs and metadata', () => {
    const doc = withRichCell();
    const deleted = ok<IDeleteResult>(only(doc, { op: 'delete', id: 'b' }));
    const restored = ok<ICellResult>(
      only(doc, { op: 'restore', index: deleted.index, cell: deleted.cell })
    );
    expect(restored).toEqual({ ok: true, id: 'b', index: 1 });
    expect(doc.ids()).toEqual(['a', 'b', 'c']);
    expect(doc.cell('b').toJSON()).toEqual(deleted.cell);
  });

  it('delete with a stale expect keeps the cell', () => {
    const doc = FakeDoc.abc();
    expect(err(only(doc, { op: 'delete', id: 'b', expect: 'old' })).error).toBe('STALE_READ');
    expect(doc.ids()).toEqual(['a', 'b', 'c']);
  });

  it('restore refuses an id that is already there', () => {
    const doc = FakeDoc.abc();
    const cell = doc.cell('b').toJSON();
    expect(err(only(doc, { op: 'restore', index: 0, cell })).error).toBe('CELL_EXISTS');
    expect(doc.ids()).toEqual(['a', 'b', 'c']);
  });

  it('restore past the end appends', () => {
    const doc = FakeDoc.abc();
    const cell: nbformat.ICell = {
      id: 'z',
      cell_type: 'markdown',
      source: ['# a\n', 'b'],
      metadata: {}
    };
    const result = ok<ICellResult>(only(doc, { op: 'restore', index: 99, cell }));
    expect(result.index).toBe(3);
    expect(doc.cell('z').getSource()).toBe('# a\nb');
  });

  it('a running cell cannot be deleted', () => {
    const doc = FakeDoc.abc();
    doc.cell('b').running = true;
    expect(err(only(doc, { op: 'delete', id: 'b' })).error).toBe('CELL_BUSY');
    expect(doc.ids()).toEqual(['a', 'b', 'c']);
  });
});

describe('set_type', () => {
  it('turns a code cell into markdown keeping id, source and metadata', () => {
    const doc = FakeDoc.abc();
    doc.cell('b').metadata = { tags: ['t'] };
    ok(only(doc, { op: 'set_type', id: 'b', cell_type: 'markdown' }));
    expect(doc.ids()).toEqual(['a', 'b', 'c']);
    expect(doc.cell('b').toJSON()).toEqual({
      id: 'b',
      cell_type: 'markdown',
      source: 'B',
      metadata: { tags: ['t'] }
    });
  });

  it('refuses with a stale expect', () => {
    const doc = FakeDoc.abc();
    expect(err(only(doc, { op: 'set_type', id: 'b', cell_type: 'raw', expect: 'x' })).error).toBe(
      'STALE_READ'
    );
    expect(doc.cell('b').cellType).toBe('code');
  });
});

describe('set_outputs', () => {
  it('writes outputs and count outside the undo history', () => {
    const doc = FakeDoc.abc();
    ok(
      only(doc, {
        op: 'set_outputs',
        id: 'a',
        execution_count: 4,
        outputs: [{ output_type: 'stream', name: 'stdout', text: ['a\n', 'b\n'] }]
      })
    );
    expect(doc.cell('a').outputs).toEqual([
      { output_type: 'stream', name: 'stdout', text: 'a\nb\n' }
    ]);
    expect(doc.cell('a').executionCount).toBe(4);
    expect(doc.changes).toEqual([{ undoable: false }, { undoable: false }]);
  });

  it('clears the old outputs in one change before writing the new ones in another', () => {
    // JupyterLab's output model applies a replace as "insert the new, then delete the old" and merges an
    // inserted stream into the old last stream before deleting it: the text showed twice, then vanished.
    const doc = new FakeDoc([
      {
        id: 'a',
        cell_type: 'code',
        source: '',
        metadata: {},
        execution_count: 1,
        outputs: [{ output_type: 'stream', name: 'stdout', text: 'run 1\n' }]
      }
    ]);
    const stream: nbformat.IStream = { output_type: 'stream', name: 'stdout', text: 'run 2\n' };
    ok(only(doc, { op: 'set_outputs', id: 'a', execution_count: 2, outputs: [stream] }));
    expect(doc.cell('a').outputHistory).toEqual([[], [stream]]);
    expect(doc.changes).toEqual([{ undoable: false }, { undoable: false }]);
  });

  it('refuses a markdown cell', () => {
    const doc = new FakeDoc([{ id: 'm', cell_type: 'markdown', source: '' }]);
    const error = err(
      only(doc, { op: 'set_outputs', id: 'm', outputs: [], execution_count: null })
    );
    expect(error.error).toBe('INVALID_OP');
  });

  it('refuses a malformed output before changing anything', () => {
    const doc = FakeDoc.abc();
    const error = err(
      only(doc, {
        op: 'set_outputs',
        id: 'a',
        outputs: [{ output_type: 'nope' }],
        execution_count: 1
      })
    );
    expect(error.error).toBe('INVALID_OP');
    expect(error.message).toContain('ops[0].outputs[0].output_type');
    expect(doc.changes).toEqual([]);
  });
});

describe('move', () => {
  it('is one undoable change that keeps the cell and marks it as touched', () => {
    const doc = FakeDoc.abc();
    doc.cell('a').outputs = [{ output_type: 'stream', name: 'stdout', text: 'kept\n' }];
    const { results, touched } = applyOps(doc, [{ op: 'move', id: 'a', after_id: 'c' }]);
    expect(ok<ICellResult>(results[0]).index).toBe(2);
    expect(doc.ids()).toEqual(['b', 'c', 'a']);
    expect(doc.cell('a').outputs).toEqual([
      { output_type: 'stream', name: 'stdout', text: 'kept\n' }
    ]);
    expect(doc.changes).toEqual([{ undoable: true }]);
    expect(touched).toEqual(['a']);
  });

  it('to where the cell already is makes no undo step and no mark', () => {
    const doc = FakeDoc.abc();
    const { touched } = applyOps(doc, [{ op: 'move', id: 'b', after_id: 'a' }]);
    expect(doc.changes).toEqual([]);
    expect(touched).toEqual([]);
  });

  it('refuses a running cell: its widget would be recreated under the run', () => {
    const doc = FakeDoc.abc();
    doc.cell('b').running = true;
    expect(err(only(doc, { op: 'move', id: 'b', after_id: null })).error).toBe('CELL_BUSY');
    expect(doc.ids()).toEqual(['a', 'b', 'c']);
  });

  it('leaves the cells as they were when the insert fails', () => {
    const doc = FakeDoc.abc();
    doc.failNextInsert = new Error('boom');
    expect(err(only(doc, { op: 'move', id: 'c', after_id: null })).error).toBe('EXECUTION_ERROR');
    expect(doc.ids()).toEqual(['a', 'b', 'c']);
  });
});

describe('clear_outputs', () => {
  it('is undoable, unlike set_outputs, and returns the cell as it was', () => {
    const doc = FakeDoc.abc();
    const stream: nbformat.IStream = { output_type: 'stream', name: 'stdout', text: 'x\n' };
    doc.cell('b').outputs = [stream];
    doc.cell('b').executionCount = 5;
    const { results, touched } = applyOps(doc, [{ op: 'clear_outputs', id: 'b' }]);
    const result = ok<IClearOutputsResult>(results[0]);
    expect(result.cell).toMatchObject({ id: 'b', outputs: [stream], execution_count: 5 });
    expect(doc.cell('b').outputs).toEqual([]);
    expect(doc.cell('b').executionCount).toBeNull();
    expect(doc.changes).toEqual([{ undoable: true }]);
    expect(touched).toEqual(['b']);
  });

  it('of a cell with nothing to clear makes no undo step', () => {
    const doc = FakeDoc.abc();
    ok(only(doc, { op: 'clear_outputs', id: 'a' }));
    expect(doc.changes).toEqual([]);
  });
});

describe('errors', () => {
  it('an unknown cell id says which and what to do', () => {
    const doc = FakeDoc.abc();
    expect(err(only(doc, { op: 'replace', id: 'x', source: '', expect: null }))).toEqual({
      ok: false,
      error: 'CELL_NOT_FOUND',
      message: "no cell with id 'x' in work/analysis.ipynb; read the notebook again for current ids"
    });
  });

  it('an unknown op is INVALID_OP and lists the known ones', () => {
    const error = err(only(FakeDoc.abc(), { op: 'explode' }));
    expect(error.error).toBe('INVALID_OP');
    expect(error.message).toContain('get_cells, insert, replace');
  });

  it('a missing field is INVALID_OP saying so', () => {
    const error = err(only(FakeDoc.abc(), { op: 'replace', id: 'a' }));
    expect(error.message).toBe(
      'ops[0].source must be a string, got nothing (the field is missing)'
    );
  });

  it('a missing after_id is refused rather than read as "at the top"', () => {
    const doc = FakeDoc.abc();
    const error = err(only(doc, { op: 'insert', cell_type: 'code', source: 'x' }));
    expect(error.error).toBe('INVALID_OP');
    expect(error.message).toContain('ops[0].after_id must be a cell id or null');
    expect(doc.ids()).toEqual(['a', 'b', 'c']);
  });

  it('a wrongly typed field is INVALID_OP naming the field', () => {
    const error = err(only(FakeDoc.abc(), { op: 'replace', id: 'a', source: 3 }));
    expect(error).toEqual({
      ok: false,
      error: 'INVALID_OP',
      message: 'ops[0].source must be a string, got number 3'
    });
  });

  it('a thrown exception becomes EXECUTION_ERROR for that op only', () => {
    const doc = FakeDoc.abc();
    doc.failNextInsert = new Error('boom');
    const { results } = applyOps(doc, [
      { op: 'insert', after_id: null, cell_type: 'code', source: 'lost' },
      { op: 'replace', id: 'c', source: 'C2', expect: 'C' }
    ]);
    expect(err(results[0])).toMatchObject({ error: 'EXECUTION_ERROR' });
    expect(err(results[0]).message).toContain('boom');
    expect(ok<ICellResult>(results[1]).id).toBe('c');
    expect(doc.ids()).toEqual(['a', 'b', 'c']);
    expect(doc.cell('c').getSource()).toBe('C2');
  });

  it('a failing op in a batch leaves the ops around it applied', () => {
    const doc = FakeDoc.abc();
    doc.cell('b').source = 'user edit';
    const { results, touched } = applyOps(doc, [
      { op: 'replace', id: 'a', source: 'A2', expect: 'A' },
      { op: 'replace', id: 'b', source: 'B2', expect: 'B' },
      { op: 'delete', id: 'nope' },
      { op: 'insert', after_id: 'c', cell_type: 'raw', source: 'r' }
    ]);
    expect(results.map(r => (r.ok ? 'ok' : r.error))).toEqual([
      'ok',
      'STALE_READ',
      'CELL_NOT_FOUND',
      'ok'
    ]);
    expect(doc.cells().map(c => c.getSource())).toEqual(['A2', 'user edit', 'C', 'r']);
    expect(touched).toEqual(['a', (results[3] as ICellResult).id]);
    expect(doc.batches).toBe(1);
  });

  it('a batch of many ops is one batch (one undo step)', () => {
    const doc = FakeDoc.abc();
    applyOps(doc, [
      { op: 'insert', after_id: null, cell_type: 'code', source: '1' },
      { op: 'replace', id: 'c', source: 'C2', expect: 'C' },
      { op: 'delete', id: 'a' }
    ]);
    expect(doc.batches).toBe(1);
    expect(doc.changes.every(c => c.undoable)).toBe(true);
  });
});
