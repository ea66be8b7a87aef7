/**
 * Review marks: every cell the agent's last runs added, changed or deleted in this notebook,
 * each with Keep and Undo, until the user decides.
 *
 * The kernel is the source of truth. The page opens the `jupyter_agent.review` comm (after
 * a load or reload it is the only one that knows it needs the marks); the kernel answers
 * with a `review` message per run and sends it again whenever it changes. Clicks go back as
 * `review_action`; the answer (`review_result`) clears the mark or shows why it stays.
 *
 * Marks are page state only, keyed by cell id: a class on the cell's node and a bar
 * prepended to it, built with textContent. Nothing goes into the notebook model, so
 * nothing of it is ever saved into the file.
 *
 * The same comm carries the approvals shown at their cells while a run waits (pending.ts).
 */
import type { Kernel } from '@jupyterlab/services';
import type { NotebookPanel } from '@jupyterlab/notebook';

import { coalesced } from './coalesce';
import { diffLines } from './diffLines';
import { isRecord } from './nbjson';
import { PendingMarks } from './pending';
import { applyStaticView } from './staticViews';

export const REVIEW_TARGET = 'jupyter_agent.review';
export const REVIEW_CLASS = { added: 'jp-agent-review-added', changed: 'jp-agent-review-changed' };
export const BAR_CLASS = 'jp-agent-review-bar';

type CommData = Parameters<Kernel.IComm['send']>[0];

export type ReviewKind = 'added' | 'changed' | 'deleted';

export interface IReviewCell {
  id: string;
  kind: ReviewKind;
  before: string | null;
  after: string | null;
  cell_type: string;
  /** Deleted cells: where the cell stood (the bar goes on the cell now at that place). */
  index: number | null;
}

export interface IReviewMessage {
  run_id: number;
  cells: IReviewCell[];
}

export interface IReviewResult {
  request_id: string;
  cell_id: string;
  outcome: 'kept' | 'undone' | 'refused';
  reason: string;
}

const KINDS: readonly string[] = ['added', 'changed', 'deleted'];

function textOrNull(value: unknown): string | null {
  return typeof value === 'string' ? value : null;
}

/** A `review` message, or null when it is anything else (unknown messages are ignored). */
export function parseReview(data: unknown): IReviewMessage | null {
  if (!isRecord(data) || data.type !== 'review' || typeof data.run_id !== 'number') {
    return null;
  }
  const cells: IReviewCell[] = [];
  for (const raw of Array.isArray(data.cells) ? (data.cells as unknown[]) : []) {
    if (!isRecord(raw) || typeof raw.id !== 'string' || !KINDS.includes(String(raw.kind))) {
      continue;
    }
    cells.push({
      id: raw.id,
      kind: raw.kind as ReviewKind,
      before: textOrNull(raw.before),
      after: textOrNull(raw.after),
      cell_type: typeof raw.cell_type === 'string' ? raw.cell_type : 'code',
      index: typeof raw.index === 'number' ? raw.index : null
    });
  }
  return { run_id: data.run_id, cells };
}

export function parseResult(data: unknown): IReviewResult | null {
  if (!isRecord(data) || data.type !== 'review_result' || typeof data.request_id !== 'string') {
    return null;
  }
  const outcome = String(data.outcome);
  return {
    request_id: data.request_id,
    cell_id: typeof data.cell_id === 'string' ? data.cell_id : '',
    outcome: outcome === 'kept' || outcome === 'undone' ? outcome : 'refused',
    reason: typeof data.reason === 'string' ? data.reason : ''
  };
}

/** The cell id of a `reveal_cell` message (a review row's "Show in notebook"), or null. */
export function parseRevealCell(data: unknown): string | null {
  return isRecord(data) && data.type === 'reveal_cell' && typeof data.cell_id === 'string'
    ? data.cell_id
    : null;
}

interface IMark extends IReviewCell {
  run_id: number;
}

/** The marks of one panel, and the comm they come over. */
export class ReviewMarks {
  private readonly runs = new Map<number, IReviewCell[]>();
  private readonly reasons = new Map<string, string>();
  private comm: Kernel.IComm | null = null;
  private requests = 0;
  /** A redraw once the current burst of model changes is over. */
  private readonly queueRender = coalesced(() => this.render());
  private disposed = false;
  /** Approvals waiting at their cells (pending.ts); they come over the same comm. */
  readonly pending: PendingMarks;

  constructor(
    private readonly panel: NotebookPanel,
    private readonly localPath: () => string
  ) {
    panel.model?.cells.changed.connect(this.queueRender);
    this.pending = new PendingMarks(panel, data => this.send(data));
  }

  /** Ask the kernel for the marks (on load, and on every hello: the agent may have loaded since). */
  connect(kernel: Kernel.IKernelConnection): void {
    if (this.disposed || (this.comm !== null && !this.comm.isDisposed)) {
      return;
    }
    let comm: Kernel.IComm;
    try {
      comm = kernel.createComm(REVIEW_TARGET);
    } catch (e) {
      console.warn('jupyter-agent: no review comm', e);
      return;
    }
    this.comm = comm;
    comm.onMsg = msg => this.onMessage(msg.content.data);
    comm.onClose = () => {
      if (this.comm === comm) {
        this.comm = null; // a kernel without the agent closes it at once; the next hello retries
      }
    };
    void comm.open({ path: this.localPath() } as unknown as CommData).done.catch(() => undefined);
  }

  dispose(): void {
    this.disposed = true;
    this.panel.model?.cells.changed.disconnect(this.queueRender);
    this.pending.dispose();
    this.clearDom();
    if (this.comm !== null && !this.comm.isDisposed) {
      this.comm.close();
    }
  }

  private onMessage(data: unknown): void {
    if (this.pending.onMessage(data) || applyStaticView(this.panel, data)) {
      return;
    }
    const revealed = parseRevealCell(data);
    if (revealed !== null) {
      this.reveal(revealed);
      return;
    }
    const review = parseReview(data);
    if (review !== null) {
      this.runs.set(review.run_id, review.cells);
      this.render();
      return;
    }
    const result = parseResult(data);
    if (result === null) {
      return;
    }
    if (result.outcome === 'refused') {
      this.reasons.set(result.cell_id, result.reason);
    } else {
      this.reasons.delete(result.cell_id);
      for (const [run, cells] of this.runs) {
        this.runs.set(
          run,
          cells.filter(cell => cell.id !== result.cell_id)
        );
      }
    }
    this.render();
  }

  /** Scroll to the cell and select it (nothing when it is not in this notebook). */
  private reveal(cellId: string): void {
    const content = this.panel.content;
    const index = content.widgets.findIndex(widget => widget.model.id === cellId);
    if (index < 0) {
      return;
    }
    content.activeCellIndex = index;
    content.deselectAll();
    void content.scrollToItem(index, 'center').catch(() => undefined);
  }

  private act(mark: IMark, action: 'keep' | 'undo'): void {
    this.requests++;
    this.send({
      type: 'review_action',
      request_id: `r${this.requests}`,
      run_id: mark.run_id,
      action,
      cell_id: mark.id
    });
  }

  private send(data: Record<string, unknown>): void {
    if (this.comm !== null && !this.comm.isDisposed) {
      this.comm.send(data as unknown as CommData);
    }
  }

  private marks(): IMark[] {
    const all: IMark[] = [];
    for (const [run_id, cells] of this.runs) {
      cells.forEach(cell => all.push({ ...cell, run_id }));
    }
    return all;
  }

  private clearDom(): void {
    for (const widget of this.panel.content.widgets) {
      widget.removeClass(REVIEW_CLASS.added);
      widget.removeClass(REVIEW_CLASS.changed);
      widget.node.querySelectorAll(`:scope > .${BAR_CLASS}`).forEach(bar => bar.remove());
    }
  }

  private render(): void {
    if (this.disposed || this.panel.isDisposed) {
      return;
    }
    this.clearDom();
    const widgets = this.panel.content.widgets;
    const byId = new Map(widgets.map(widget => [widget.model.id, widget]));
    for (const mark of this.marks()) {
      if (mark.kind === 'deleted') {
        if (widgets.length === 0 || byId.has(mark.id)) {
          continue; // back already (restored by hand): the next review drops it
        }
        const at = widgets[Math.min(mark.index ?? widgets.length - 1, widgets.length - 1)];
        at.node.prepend(this.bar(mark));
        continue;
      }
      const widget = byId.get(mark.id);
      if (widget !== undefined) {
        widget.addClass(REVIEW_CLASS[mark.kind]);
        widget.node.prepend(this.bar(mark));
      }
    }
  }

  private bar(mark: IMark): HTMLElement {
    const bar = document.createElement('div');
    bar.className = `${BAR_CLASS} ${BAR_CLASS}-${mark.kind}`;
    bar.dataset.cellId = mark.id;
    const badge = document.createElement('span');
    badge.className = 'jp-agent-review-badge';
    badge.textContent =
      mark.kind === 'deleted' ? `agent deleted cell ${mark.id}` : `agent ${mark.kind}`;
    const diff = document.createElement('pre');
    diff.className = 'jp-agent-review-diff';
    diff.textContent = diffLines(mark.before, mark.after).join('\n');
    diff.hidden = true;
    const show = this.button(mark.kind === 'deleted' ? 'show' : 'diff', () => {
      diff.hidden = !diff.hidden;
    });
    const keep = this.button('Keep', () => this.act(mark, 'keep'));
    const undo = this.button(mark.kind === 'deleted' ? 'Restore' : 'Undo', () =>
      this.act(mark, 'undo')
    );
    bar.append(badge, show, keep, undo);
    const reason = this.reasons.get(mark.id);
    if (reason !== undefined) {
      const why = document.createElement('div');
      why.className = 'jp-agent-review-reason';
      why.textContent = `Not undone: ${reason}`;
      bar.append(why);
    }
    bar.append(diff);
    return bar;
  }

  private button(label: string, onClick: () => void): HTMLButtonElement {
    const button = document.createElement('button');
    button.className = 'jp-agent-review-button';
    button.textContent = label;
    button.addEventListener('click', event => {
      event.stopPropagation();
      onClick();
    });
    return button;
  }
}
