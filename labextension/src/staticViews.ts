/**
 * The agent's widget displays, once their widget is gone: a notebook that reopens clean.
 *
 * Each widget the agent shows carries a static rendering beside its widget view (text/plain
 * and text/html, marked with STATIC_MIME). JupyterLab always prefers the widget view, and
 * once no kernel holds the widget's model (a restart, a reload against a new kernel) it draws
 * "Error displaying widget: model not found". So this module:
 *
 * - on a kernel restart, drops the widget view of every agent display (no model survives it);
 * - when a panel gets a kernel (opening, reloading), asks that kernel which widget models it
 *   holds (`comm_info_request`) and drops the view of every agent display whose model is not
 *   among them, leaving the static rendering to show;
 * - writes a review's newer static rendering (`static_view`, sent by the kernel when a click or
 *   `%agent undo` changes it) into its output: the kernel cannot update a display whose cell is
 *   done, and the saved file should say what was decided, not what was pending.
 */
import type * as nbformat from '@jupyterlab/nbformat';
import type { INotebookModel, NotebookPanel } from '@jupyterlab/notebook';
import type { Kernel } from '@jupyterlab/services';

import { isRecord } from './nbjson';

export const STATIC_MIME = 'application/vnd.jupyter-agent.static+json';
export const WIDGET_MIME = 'application/vnd.jupyter.widget-view+json';
const WIDGET_TARGET = 'jupyter.widget';

type Data = Record<string, unknown>;
type SharedCell = INotebookModel['sharedModel']['cells'][number];
type SharedCodeCell = Extract<SharedCell, { cell_type: 'code' }>;

function isCode(cell: SharedCell): cell is SharedCodeCell {
  return cell.cell_type === 'code';
}

export interface IStaticView {
  model_id: string;
  data: Record<string, string>;
  /** False once the widget was closed (a frozen review): its view goes at once. */
  live: boolean;
}

/** A `static_view` message, or null when it is anything else. */
export function parseStatic(data: unknown): IStaticView | null {
  if (!isRecord(data) || data.type !== 'static_view' || typeof data.model_id !== 'string') {
    return null;
  }
  const bundle: Record<string, string> = {};
  if (isRecord(data.data)) {
    for (const mime of ['text/plain', 'text/html']) {
      const value = data.data[mime];
      if (typeof value === 'string') {
        bundle[mime] = value;
      }
    }
  }
  return { model_id: data.model_id, data: bundle, live: data.live !== false };
}

/** The widget model an agent display shows, or null when the output is not an agent widget display. */
export function agentModelId(data: Data): string | null {
  const marker = data[STATIC_MIME];
  if (!isRecord(marker)) {
    return null;
  }
  const view = data[WIDGET_MIME];
  if (isRecord(view) && typeof view.model_id === 'string') {
    return view.model_id;
  }
  return typeof marker.model_id === 'string' ? marker.model_id : null;
}

/** The output's data without its widget view: what shows is its static rendering. */
export function withoutWidget(data: Data): Data {
  const rest: Data = { ...data };
  delete rest[WIDGET_MIME];
  return rest;
}

/** The output's data with a newer static rendering; null when nothing would change. */
export function withStatic(data: Data, view: IStaticView): Data | null {
  const next: Data = { ...(view.live ? data : withoutWidget(data)), ...view.data };
  const same =
    Object.keys(next).length === Object.keys(data).length &&
    Object.entries(next).every(([mime, value]) => data[mime] === value);
  return same ? null : next;
}

/**
 * Replace the data of each agent widget display of the panel for which `change` returns new
 * data (given the data and the widget model it shows). Returns how many changed.
 */
function rewrite(
  panel: NotebookPanel,
  change: (data: Data, modelId: string) => Data | null
): number {
  const model = panel.content.model;
  if (model === null) {
    return 0;
  }
  let changed = 0;
  for (const cell of model.sharedModel.cells) {
    if (!isCode(cell)) {
      continue;
    }
    const outputs = cell.getOutputs();
    outputs.forEach((output, index) => {
      const data = output.data;
      const modelId = isRecord(data) ? agentModelId(data) : null;
      const next = modelId === null || !isRecord(data) ? null : change(data, modelId);
      if (next !== null) {
        // One display_data for another (no stream to merge): the output area redraws just that output.
        cell.updateOutputs(index, index + 1, [{ ...output, data: next } as nbformat.IOutput]);
        changed++;
      }
    });
  }
  return changed;
}

/** Write a `static_view` into the outputs showing its widget; true when `data` was one. */
export function applyStaticView(panel: NotebookPanel, data: unknown): boolean {
  const view = parseStatic(data);
  if (view === null) {
    return false;
  }
  rewrite(panel, (old, modelId) => (modelId === view.model_id ? withStatic(old, view) : null));
  return true;
}

/** Drop the widget view of every agent display whose model `live` does not hold. */
export function dropDeadWidgets(panel: NotebookPanel, live: ReadonlySet<string>): number {
  return rewrite(panel, (data, modelId) =>
    !live.has(modelId) && WIDGET_MIME in data ? withoutWidget(data) : null
  );
}

/** The widget models the kernel holds now (their comm ids). */
async function liveWidgets(kernel: Kernel.IKernelConnection): Promise<Set<string>> {
  const reply = await kernel.requestCommInfo({ target_name: WIDGET_TARGET });
  const content = reply.content;
  return new Set(content.status === 'ok' ? Object.keys(content.comms) : []);
}

/** Keep the panel's agent widget displays true to its kernel: see the module docstring. */
export function watchStaticViews(panel: NotebookPanel): void {
  const session = panel.sessionContext;
  const check = async (kernel: Kernel.IKernelConnection | null | undefined): Promise<void> => {
    await panel.context.ready;
    if (panel.isDisposed) {
      return;
    }
    if (!kernel) {
      dropDeadWidgets(panel, new Set());
      return;
    }
    try {
      dropDeadWidgets(panel, await liveWidgets(kernel));
    } catch (e) {
      console.warn('jupyter-agent: could not ask the kernel for its widgets', e);
    }
  };
  session.kernelChanged.connect((_, change) => void check(change.newValue));
  session.statusChanged.connect((_, status) => {
    if (status === 'restarting' || status === 'dead') {
      dropDeadWidgets(panel, new Set()); // no widget model outlives its kernel
    }
  });
  void session.ready.then(() => check(session.session?.kernel));
}
