/**
 * Turning the JSON the kernel sent into typed requests and ops.
 *
 * Every op is checked completely before it is applied, so a malformed op is refused as a
 * whole (INVALID_OP) and the ones around it still run.
 */
import * as check from './nbjson';
import { InvalidPayload, isRecord, JSONRecord } from './nbjson';
import { IInsertOp, IOpError, IRequestMessage, IResponseMessage, Op, OP_NAMES } from './protocol';

export type ParsedOp = { ok: true; op: Op } | { ok: false; error: IOpError };

function str(raw: JSONRecord, key: string, where: string): string {
  const value = raw[key];
  if (typeof value !== 'string') {
    throw new InvalidPayload(`${where}.${key} must be a string, got ${check.describe(value)}`);
  }
  return value;
}

/** A string or null; an absent `expect` means null (no stale check). */
function nullableStr(raw: JSONRecord, key: string, where: string): string | null {
  const value = raw[key];
  if (value === undefined || value === null) {
    return null;
  }
  return str(raw, key, where);
}

/**
 * A string or null that must be spelled out: a forgotten `after_id` silently meaning
 * "at the top" would put cells in the wrong place.
 */
function position(raw: JSONRecord, key: string, where: string): string | null {
  if (!(key in raw)) {
    throw new InvalidPayload(
      `${where}.${key} must be a cell id or null (null: at the top), got nothing (the field is missing)`
    );
  }
  return nullableStr(raw, key, where);
}

function index(raw: JSONRecord, key: string, where: string): number {
  const value = raw[key];
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0) {
    throw new InvalidPayload(
      `${where}.${key} must be a non-negative integer, got ${check.describe(value)}`
    );
  }
  return value;
}

function build(raw: JSONRecord, where: string): Op {
  switch (raw.op) {
    case 'get_cells':
      return { op: 'get_cells' };
    case 'insert': {
      const op: IInsertOp = {
        op: 'insert',
        after_id: position(raw, 'after_id', where),
        cell_type: check.cellType(raw.cell_type, `${where}.cell_type`),
        source: str(raw, 'source', where)
      };
      if (raw.id !== undefined && raw.id !== null) {
        op.id = check.cellId(raw.id, `${where}.id`);
      }
      return op;
    }
    case 'replace':
      return {
        op: 'replace',
        id: str(raw, 'id', where),
        source: str(raw, 'source', where),
        expect: nullableStr(raw, 'expect', where)
      };
    case 'set_type':
      return {
        op: 'set_type',
        id: str(raw, 'id', where),
        cell_type: check.cellType(raw.cell_type, `${where}.cell_type`),
        expect: nullableStr(raw, 'expect', where)
      };
    case 'delete':
      return { op: 'delete', id: str(raw, 'id', where), expect: nullableStr(raw, 'expect', where) };
    case 'restore':
      return {
        op: 'restore',
        index: index(raw, 'index', where),
        cell: check.cell(raw.cell, `${where}.cell`)
      };
    case 'set_outputs':
      return {
        op: 'set_outputs',
        id: str(raw, 'id', where),
        outputs: check.outputs(raw.outputs, `${where}.outputs`),
        execution_count: check.executionCount(raw.execution_count, `${where}.execution_count`),
        expect: nullableStr(raw, 'expect', where)
      };
    case 'move':
      return {
        op: 'move',
        id: str(raw, 'id', where),
        after_id: position(raw, 'after_id', where),
        expect: nullableStr(raw, 'expect', where)
      };
    case 'clear_outputs':
      return {
        op: 'clear_outputs',
        id: str(raw, 'id', where),
        expect: nullableStr(raw, 'expect', where)
      };
    default:
      throw new InvalidPayload(
        `${where}.op must be one of ${OP_NAMES.join(', ')}, got ${check.describe(raw.op)}`
      );
  }
}

/** Check one op; `position` is its index in the request, used in messages ("ops[2].source"). */
export function parseOp(raw: unknown, position: number): ParsedOp {
  const where = `ops[${position}]`;
  try {
    if (!isRecord(raw)) {
      throw new InvalidPayload(`${where} must be an object, got ${check.describe(raw)}`);
    }
    return { ok: true, op: build(raw, where) };
  } catch (e) {
    if (e instanceof InvalidPayload) {
      return { ok: false, error: { ok: false, error: 'INVALID_OP', message: e.message } };
    }
    throw e;
  }
}

export type ParsedRequest =
  | { kind: 'request'; request: IRequestMessage }
  | { kind: 'invalid'; response: IResponseMessage }
  | { kind: 'ignore' };

/**
 * Classify a comm message from the kernel. Message types this version does not know are
 * ignored (room for later additions); a malformed request is answered with INVALID_REQUEST
 * so the kernel does not wait for a reply that never comes.
 */
export function parseRequest(data: unknown): ParsedRequest {
  if (!isRecord(data) || data.type !== 'request') {
    return { kind: 'ignore' };
  }
  const requestId = typeof data.request_id === 'string' ? data.request_id : null;
  const invalid = (message: string): ParsedRequest => ({
    kind: 'invalid',
    response: {
      type: 'response',
      request_id: requestId,
      results: [],
      error: 'INVALID_REQUEST',
      message
    }
  });
  if (requestId === null) {
    return invalid(`request_id must be a string, got ${check.describe(data.request_id)}`);
  }
  if (!Array.isArray(data.ops)) {
    return invalid(`ops must be a list of operations, got ${check.describe(data.ops)}`);
  }
  if (data.client_id !== undefined && typeof data.client_id !== 'string') {
    return invalid(`client_id must be a string when given, got ${check.describe(data.client_id)}`);
  }
  const request: IRequestMessage = { type: 'request', request_id: requestId, ops: data.ops };
  if (typeof data.client_id === 'string') {
    request.client_id = data.client_id;
  }
  return { kind: 'request', request };
}
