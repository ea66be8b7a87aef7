/**
 * The shared operation vectors (tests/fixtures/notebook_ops) through this engine, ops.ts.
 * pytest runs the same files through the kernel's Python engine (notebook/apply.py), so
 * the two cannot drift apart unnoticed. The format is in that directory's README.md.
 */
import * as fs from 'fs';
import * as path from 'path';

import type * as nbformat from '@jupyterlab/nbformat';

import { applyOps } from '../ops';
import type { CellType } from '../protocol';
import { FakeDoc } from './fakeDoc';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

interface IVector {
  name: string;
  cells: Array<Partial<nbformat.ICell> & { cell_type: CellType }>;
  ops: Json[];
  results: Array<{ [key: string]: Json }>;
  expected_cells: Array<{ [key: string]: Json }>;
}

const VECTORS = path.resolve(__dirname, '../../../tests/fixtures/notebook_ops');

function loadCases(): Array<[string, IVector]> {
  return fs
    .readdirSync(VECTORS)
    .filter(name => name.endsWith('.json'))
    .sort()
    .flatMap(name => {
      const cases = JSON.parse(fs.readFileSync(path.join(VECTORS, name), 'utf-8')) as IVector[];
      return cases.map((c): [string, IVector] => [`${name.replace('.json', '')}: ${c.name}`, c]);
    });
}

/** Exact equality, except that an expected `id` of "*" accepts any id not among `otherIds`. */
function assertMatches(
  expected: Json,
  actual: unknown,
  otherIds: Set<string>,
  where: string
): void {
  if (
    expected !== null &&
    typeof expected === 'object' &&
    !Array.isArray(expected) &&
    actual !== null &&
    typeof actual === 'object' &&
    !Array.isArray(actual)
  ) {
    const got = actual as { [key: string]: unknown };
    expect({ where, keys: Object.keys(got).sort() }).toEqual({
      where,
      keys: Object.keys(expected).sort()
    });
    for (const [key, value] of Object.entries(expected)) {
      if (key === 'id' && value === '*') {
        expect(typeof got.id === 'string' && got.id !== '' && !otherIds.has(got.id)).toBe(true);
      } else {
        assertMatches(value, got[key], otherIds, `${where}.${key}`);
      }
    }
    return;
  }
  expect({ where, value: actual }).toEqual({ where, value: expected });
}

const cases = loadCases();

describe('the shared operation vectors', () => {
  it('are there', () => {
    expect(cases.length).toBeGreaterThan(40);
  });

  it.each(cases)('%s', (_name, vector) => {
    const doc = new FakeDoc(JSON.parse(JSON.stringify(vector.cells)));
    const { results } = applyOps(doc, vector.ops);
    expect(results).toHaveLength(vector.ops.length);
    const named = new Set(vector.expected_cells.map(c => c.id as string).filter(id => id !== '*'));
    vector.results.forEach((expected, index) => {
      const actual = results[index] as unknown as { [key: string]: unknown };
      const shown = Object.fromEntries(Object.entries(actual).filter(([key]) => key in expected));
      assertMatches(expected, shown, named, `results[${index}] (${String(actual.message ?? '')})`);
    });
    const cells = doc.cells().map(c => c.toJSON());
    expect(cells.map(c => c.id)).toHaveLength(vector.expected_cells.length);
    vector.expected_cells.forEach((expected, index) => {
      assertMatches(expected, cells[index], named, `cells[${index}]`);
    });
  });
});
