/**
 * Checking and normalising the nbformat JSON that arrives from the kernel (outputs for
 * `set_outputs`, a whole cell for `restore`) before it touches the live model.
 *
 * Validation happens before any change so an op with a bad payload changes nothing.
 * Multiline strings are joined here because the shared model joins a list-valued stream
 * `text` with commas, and a file read with nbformat may carry either form.
 */
import type * as nbformat from '@jupyterlab/nbformat';

import { CELL_TYPES, CellType } from './protocol';

/** Thrown by the checkers; turned into an INVALID_OP result by the caller. */
export class InvalidPayload extends Error {}

/** A JSON object as nbformat types it (values may be any JSON, or undefined). */
export type JSONRecord = nbformat.OutputMetadata;

export function isRecord(value: unknown): value is JSONRecord {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** A short description of a bad value for error messages: its type and a cut preview. */
export function describe(value: unknown): string {
  if (value === undefined) {
    return 'nothing (the field is missing)';
  }
  if (value === null) {
    return 'null';
  }
  if (Array.isArray(value)) {
    return 'an array';
  }
  if (typeof value === 'string') {
    const cut = value.length > 40 ? `${value.slice(0, 40)}…` : value;
    return `the string ${JSON.stringify(cut)}`;
  }
  if (typeof value === 'object') {
    return 'an object';
  }
  return `${typeof value} ${String(value)}`;
}

function fail(where: string, expected: string, got: unknown): never {
  throw new InvalidPayload(`${where} must be ${expected}, got ${describe(got)}`);
}

/** nbformat MultilineString -> string; a list of lines is joined without separator. */
export function multiline(value: unknown, where: string): string {
  if (typeof value === 'string') {
    return value;
  }
  if (Array.isArray(value) && value.every(line => typeof line === 'string')) {
    return value.join('');
  }
  return fail(where, 'a string or a list of strings', value);
}

export function cellType(value: unknown, where: string): CellType {
  if (typeof value === 'string' && (CELL_TYPES as readonly string[]).includes(value)) {
    return value as CellType;
  }
  return fail(where, `one of ${CELL_TYPES.join(', ')}`, value);
}

export function executionCount(value: unknown, where: string): number | null {
  if (value === null || value === undefined) {
    return null;
  }
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0) {
    return value;
  }
  return fail(where, 'a non-negative integer or null', value);
}

function record(value: unknown, where: string): JSONRecord {
  return isRecord(value) ? value : fail(where, 'an object', value);
}

/** JSON mime types keep their structure; every other value is text (maybe split in lines). */
function isJsonMime(mime: string): boolean {
  return mime === 'application/json' || mime.endsWith('+json');
}

function mimeBundle(value: unknown, where: string): nbformat.IMimeBundle {
  const bundle = record(value, where);
  const out: nbformat.IMimeBundle = {};
  for (const [mime, data] of Object.entries(bundle)) {
    out[mime] = isJsonMime(mime)
      ? (data as nbformat.IMimeBundle[string])
      : multiline(data, `${where}['${mime}']`);
  }
  return out;
}

function output(value: unknown, where: string): nbformat.IOutput {
  const raw = record(value, where);
  const type = raw.output_type;
  switch (type) {
    case 'stream':
      return {
        ...raw,
        output_type: 'stream',
        name:
          raw.name === 'stdout' || raw.name === 'stderr'
            ? raw.name
            : fail(`${where}.name`, "'stdout' or 'stderr'", raw.name),
        text: multiline(raw.text, `${where}.text`)
      };
    case 'display_data':
    case 'execute_result': {
      const common = {
        ...raw,
        data: mimeBundle(raw.data, `${where}.data`),
        metadata: raw.metadata === undefined ? {} : record(raw.metadata, `${where}.metadata`)
      };
      return type === 'display_data'
        ? { ...common, output_type: 'display_data' }
        : {
            ...common,
            output_type: 'execute_result',
            execution_count: executionCount(raw.execution_count, `${where}.execution_count`)
          };
    }
    case 'error': {
      const traceback = raw.traceback ?? [];
      if (!Array.isArray(traceback) || !traceback.every(l => typeof l === 'string')) {
        fail(`${where}.traceback`, 'a list of strings', traceback);
      }
      return {
        ...raw,
        output_type: 'error',
        ename:
          typeof raw.ename === 'string' ? raw.ename : fail(`${where}.ename`, 'a string', raw.ename),
        evalue:
          typeof raw.evalue === 'string'
            ? raw.evalue
            : fail(`${where}.evalue`, 'a string', raw.evalue),
        traceback: traceback as string[]
      };
    }
    default:
      return fail(`${where}.output_type`, 'stream, display_data, execute_result or error', type);
  }
}

export function outputs(value: unknown, where: string): nbformat.IOutput[] {
  if (!Array.isArray(value)) {
    return fail(where, 'a list of nbformat outputs', value);
  }
  return value.map((item, i) => output(item, `${where}[${i}]`));
}

/** nbformat 4.5 cell ids: 1-64 letters, digits, '-' or '_'. */
const CELL_ID = /^[a-zA-Z0-9_-]{1,64}$/;

export function cellId(value: unknown, where: string): string {
  return typeof value === 'string' && CELL_ID.test(value)
    ? value
    : fail(where, 'an nbformat cell id (1-64 of a-z A-Z 0-9 - _)', value);
}

/** A complete cell for `restore`: id required, outputs and count only for code cells. */
export function cell(value: unknown, where: string): nbformat.ICell {
  const raw = record(value, where);
  const type = cellType(raw.cell_type, `${where}.cell_type`);
  const base = {
    id: cellId(raw.id, `${where}.id`),
    source: multiline(raw.source ?? '', `${where}.source`),
    metadata: raw.metadata === undefined ? {} : record(raw.metadata, `${where}.metadata`)
  };
  if (type === 'code') {
    return {
      ...base,
      cell_type: 'code',
      outputs: outputs(raw.outputs ?? [], `${where}.outputs`),
      execution_count: executionCount(raw.execution_count, `${where}.execution_count`)
    };
  }
  const attachments =
    raw.attachments === undefined || raw.attachments === null
      ? {}
      : { attachments: record(raw.attachments, `${where}.attachments`) as nbformat.IAttachments };
  return { ...base, ...attachments, cell_type: type };
}
