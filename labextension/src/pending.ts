/**
 * An approval shown at the cells it is about, while the agent waits for it: the diff over the
 * cell (deleted lines struck, added lines marked), a new cell as a ghost cell where it would go,
 * a cell to delete dimmed, a cell to run marked — each with Allow / Deny (and "Allow all edits in
 * this run" for an edit). The kernel sends `pending` over the review comm (review.ts) and
 * `pending_done` once the question is answered, here or in the `%%agent` output; a click goes
 * back as `pending_answer`; so do Ctrl+Enter (allow) and Ctrl+Backspace (deny) in a cell the
 * question is drawn at (`shortcutAnswer`), before JupyterLab runs the cell or the editor deletes a
 * word. The buttons are JupyterLab's own (`jp-Button jp-mod-styled`, `jp-mod-accept` /
 * `jp-mod-reject`), as in its dialogs. An edit the user makes to one of the cells meanwhile goes back as
 * `pending_stale`: the kernel refuses the call with STALE_READ, and the user's text stays.
 *
 * Page state only: elements prepended to the cells' nodes and classes on the cell widgets, built
 * with textContent. Nothing goes into the notebook model, so nothing is ever saved into the file.
 */
import type { NotebookPanel } from '@jupyterlab/notebook';

import { coalesced } from './coalesce';
import { diffLines } from './diffLines';
import {
  Answer,
  changedCells,
  headline,
  IPending,
  IPendingCell,
  IPendingDone,
  parsePending,
  parsePendingDone,
  parseReveal
} from './pendingMessages';

export const PENDING_CLASS = 'jp-agent-pending';
export const GHOST_CLASS = 'jp-agent-ghost-cell';
export const NOTE_CLASS = 'jp-agent-pending-note';
/** On the cell widgets a question is about; `-deleted` dims a cell the agent would delete. */
export const TARGET_CLASS = {
  target: 'jp-agent-pending-target',
  deleted: 'jp-agent-pending-deleted',
  clearing: 'jp-agent-pending-clearing'
};
export const STALE_NOTE =
  'You changed this cell while the agent’s request waited for approval, so it was refused ' +
  '(STALE_READ); your text is kept.';

interface IOpen extends IPending {
  /** The sources of its cells when it arrived. */
  snapshot: Map<string, string>;
  /** Clicked here (the buttons are disabled until the kernel closes it). */
  answered: boolean;
  /** Cells the user changed meanwhile (reported once). */
  stale: string[];
}

type CellWidget = NotebookPanel['content']['widgets'][number];

/** The answer a key gives in a cell a question waits at, or null when it is not one of its shortcuts. */
export function shortcutAnswer(event: KeyboardEvent): Answer | null {
  if (!(event.ctrlKey || event.metaKey) || event.altKey || event.shiftKey) {
    return null;
  }
  return event.key === 'Enter' ? 'allow' : event.key === 'Backspace' ? 'deny' : null;
}

/** The classes of a button at the cell: JupyterLab's own, accept / reject for the main answers. */
export function buttonClasses(answer: Answer | 'dismiss'): string {
  const mod = answer === 'allow' ? ' jp-mod-accept' : answer === 'deny' ? ' jp-mod-reject' : '';
  return `jp-Button jp-mod-styled${mod} jp-agent-pending-button jp-agent-pending-${answer.replace('_', '-')}`;
}

/** The pending questions of one panel; `send` goes over the review comm. */
export class PendingMarks {
  private readonly open = new Map<string, IOpen>();
  /** Notes left at cells once a question ended there (a STALE_READ refusal), until dismissed. */
  private readonly notes = new Map<string, string>();
  private applying = 0;
  /** A redraw once the current burst of model changes is over. */
  private readonly queueRender = coalesced(() => this.render());
  private disposed = false;

  constructor(
    private readonly panel: NotebookPanel,
    private readonly send: (data: Record<string, unknown>) => void
  ) {
    panel.model?.cells.changed.connect(this.queueRender);
    panel.model?.contentChanged.connect(this.checkStale, this);
    // On the window, in the capture phase: before JupyterLab's own keys (at the document) and the editor's.
    window.addEventListener('keydown', this.onKey, true);
  }

  /** Ctrl+Enter / Ctrl+Backspace in a cell (or on the active cell) a question waits at answer it. */
  private readonly onKey = (event: KeyboardEvent): void => {
    const answer = shortcutAnswer(event);
    const target = event.target instanceof Element ? event.target : null;
    if (answer === null || target === null || !this.panel.node.contains(target)) {
      return;
    }
    const cellNode = target.closest('.jp-Cell') ?? this.panel.content.activeCell?.node ?? null;
    const box = cellNode?.querySelector<HTMLElement>(`:scope > .${PENDING_CLASS}`);
    const question = box?.dataset.pendingId ? this.open.get(box.dataset.pendingId) : undefined;
    if (question === undefined || question.answered || question.stale.length > 0) {
      return;
    }
    event.preventDefault();
    event.stopImmediatePropagation();
    this.answer(question, answer);
  };

  /** Handle a message of the review comm; false when it is not about pending questions. */
  onMessage(data: unknown): boolean {
    const pending = parsePending(data);
    if (pending !== null) {
      this.add(pending);
      return true;
    }
    const done = parsePendingDone(data);
    if (done !== null) {
      this.close(done);
      return true;
    }
    const reveal = parseReveal(data);
    if (reveal !== null) {
      this.reveal(reveal);
      return true;
    }
    return false;
  }

  /**
   * Run the agent's own changes (the bridge applying ops): a source change then is the agent's
   * answer to an approved question, not the user typing — also for the checks that later
   * changes (its outputs, a card) start, which compare with the sources as the agent left them.
   */
  whileApplying<T>(fn: () => T): T {
    this.applying++;
    try {
      return fn();
    } finally {
      this.applying--;
      if (this.applying === 0) {
        this.rebase();
      }
    }
  }

  /** What the agent just applied is the new baseline: only the user's later changes are typing. */
  private rebase(): void {
    for (const question of this.open.values()) {
      for (const id of question.snapshot.keys()) {
        const source = this.sourceOf(id);
        if (source !== null) {
          question.snapshot.set(id, source);
        }
      }
    }
  }

  dispose(): void {
    this.disposed = true;
    window.removeEventListener('keydown', this.onKey, true);
    this.panel.model?.cells.changed.disconnect(this.queueRender);
    this.panel.model?.contentChanged.disconnect(this.checkStale, this);
    this.clearDom();
  }

  private sourceOf(id: string): string | null {
    const cell = this.panel.model?.sharedModel.cells.find(c => c.getId() === id);
    return cell === undefined ? null : cell.getSource();
  }

  private add(pending: IPending): void {
    const snapshot = new Map<string, string>();
    for (const cell of pending.cells) {
      const source = cell.cell_id === '' ? null : this.sourceOf(cell.cell_id);
      if (source !== null) {
        snapshot.set(cell.cell_id, source);
        this.notes.delete(cell.cell_id);
      }
    }
    this.open.set(pending.pending_id, { ...pending, snapshot, answered: false, stale: [] });
    this.render();
  }

  private close(done: IPendingDone): void {
    const question = this.open.get(done.pending_id);
    this.open.delete(done.pending_id);
    if (question !== undefined && done.outcome === 'stale') {
      const where = question.stale.length > 0 ? question.stale : [...question.snapshot.keys()];
      where.forEach(id => this.notes.set(id, STALE_NOTE));
    }
    this.render();
  }

  private reveal(pendingId: string): void {
    const question = this.open.get(pendingId);
    const first = question?.cells[0];
    if (question === undefined || first === undefined) {
      return;
    }
    const widgets = this.panel.content.widgets;
    const anchorId = first.change === 'insert' ? first.after_id : first.cell_id;
    const index = Math.max(
      anchorId === null ? 0 : widgets.findIndex(w => w.model.id === anchorId),
      0
    );
    const show = (): void => {
      const box = this.panel.content.node.querySelector(
        `[data-pending-id="${CSS.escape(pendingId)}"]`
      );
      box?.scrollIntoView({ block: 'center' });
    };
    void this.panel.content.scrollToItem(index, 'center').then(show, show);
  }

  private answer(question: IOpen, answer: Answer): void {
    if (question.answered || !this.open.has(question.pending_id)) {
      return;
    }
    question.answered = true;
    this.send({ type: 'pending_answer', pending_id: question.pending_id, answer });
    this.render();
  }

  private checkStale(): void {
    if (this.applying > 0 || this.disposed) {
      return;
    }
    let changed = false;
    for (const question of this.open.values()) {
      if (question.stale.length > 0) {
        continue; // reported already: the kernel refuses the call
      }
      const ids = changedCells(question.snapshot, id => this.sourceOf(id));
      if (ids.length > 0) {
        question.stale = ids;
        changed = true;
        this.send({ type: 'pending_stale', pending_id: question.pending_id, cell_id: ids[0] });
      }
    }
    if (changed) {
      this.render();
    }
  }

  private clearDom(): void {
    for (const widget of this.panel.content.widgets) {
      Object.values(TARGET_CLASS).forEach(name => widget.removeClass(name));
      widget.node
        .querySelectorAll(
          `:scope > .${PENDING_CLASS}, :scope > .${GHOST_CLASS}, :scope > .${NOTE_CLASS}`
        )
        .forEach(node => node.remove());
    }
  }

  private render(): void {
    if (this.disposed || this.panel.isDisposed) {
      return;
    }
    this.clearDom();
    const widgets = this.panel.content.widgets;
    const byId = new Map(widgets.map(widget => [widget.model.id, widget]));
    for (const [id, note] of this.notes) {
      const widget = byId.get(id);
      if (widget !== undefined) {
        widget.node.prepend(this.note(id, note));
      }
    }
    for (const question of this.open.values()) {
      question.cells.forEach((cell, index) => {
        if (cell.change === 'insert') {
          this.placeGhost(question, cell, widgets, byId);
          return;
        }
        const widget = byId.get(cell.cell_id);
        if (widget === undefined) {
          return;
        }
        widget.addClass(TARGET_CLASS.target);
        if (cell.change === 'delete') {
          widget.addClass(TARGET_CLASS.deleted);
        }
        if (cell.change === 'clear_outputs' || cell.clears_outputs) {
          widget.addClass(TARGET_CLASS.clearing);
        }
        widget.node.prepend(this.box(question, cell, index));
      });
    }
  }

  /** A new cell: a ghost at the bottom of the cell it would follow (or above the first cell). */
  private placeGhost(
    question: IOpen,
    cell: IPendingCell,
    widgets: readonly CellWidget[],
    byId: Map<string, CellWidget>
  ): void {
    const ghost = this.box(question, cell, 0);
    ghost.classList.add(GHOST_CLASS);
    if (cell.after_id === null) {
      widgets[0]?.node.prepend(ghost);
    } else {
      byId.get(cell.after_id)?.node.append(ghost);
    }
  }

  private box(question: IOpen, cell: IPendingCell, index: number): HTMLElement {
    const box = document.createElement('div');
    box.className = `${PENDING_CLASS} ${PENDING_CLASS}-${cell.change}`;
    box.dataset.pendingId = question.pending_id;
    box.dataset.cellId = cell.cell_id;
    const head = document.createElement('div');
    head.className = 'jp-agent-pending-head';
    const badge = document.createElement('span');
    badge.className = 'jp-agent-pending-badge';
    badge.textContent = headline(cell, index, question.cells.length);
    const title = document.createElement('span');
    title.className = 'jp-agent-pending-title';
    title.textContent = question.title;
    head.append(badge, title);
    box.append(head);
    if (cell.change === 'replace' || cell.change === 'insert') {
      box.append(this.diff(cell.change === 'insert' ? null : cell.before, cell.after));
    }
    if (question.stale.includes(cell.cell_id)) {
      const why = document.createElement('div');
      why.className = 'jp-agent-pending-stale';
      why.textContent = STALE_NOTE;
      box.append(why);
      return box;
    }
    const buttons = document.createElement('div');
    buttons.className = 'jp-agent-pending-buttons';
    buttons.append(this.button('Allow', 'allow', question));
    if (question.allow_edits) {
      buttons.append(this.button('Allow all edits in this run', 'allow_edits', question));
    }
    buttons.append(this.button('Deny', 'deny', question));
    box.append(buttons);
    return box;
  }

  private diff(before: string | null, after: string): HTMLElement {
    const diff = document.createElement('pre');
    diff.className = 'jp-agent-pending-diff';
    for (const line of diffLines(before, after)) {
      const row = document.createElement('div');
      const mark = line.slice(0, 2);
      row.className =
        mark === '- '
          ? 'jp-agent-pending-del'
          : mark === '+ '
            ? 'jp-agent-pending-add'
            : 'jp-agent-pending-same';
      row.textContent = line.slice(2) || ' ';
      diff.append(row);
    }
    return diff;
  }

  private button(label: string, answer: Answer, question: IOpen): HTMLButtonElement {
    const button = document.createElement('button');
    button.className = buttonClasses(answer);
    button.textContent = label;
    if (answer === 'allow' || answer === 'deny') {
      button.title =
        answer === 'allow'
          ? 'Allow (Ctrl+Enter in this cell)'
          : 'Deny (Ctrl+Backspace in this cell)';
    }
    button.disabled = question.answered;
    button.addEventListener('click', event => {
      event.stopPropagation();
      this.answer(question, answer);
    });
    return button;
  }

  private note(id: string, message: string): HTMLElement {
    const note = document.createElement('div');
    note.className = NOTE_CLASS;
    note.dataset.cellId = id;
    const words = document.createElement('span');
    words.textContent = message;
    const dismiss = document.createElement('button');
    dismiss.className = buttonClasses('dismiss');
    dismiss.textContent = 'OK';
    dismiss.title = 'Hide this note';
    dismiss.addEventListener('click', event => {
      event.stopPropagation();
      this.notes.delete(id);
      this.render();
    });
    note.append(words, dismiss);
    return note;
  }
}
