/**
 * Binding the kernel's comm to the right notebook and serving its requests.
 *
 * The comm target is registered on the kernel connection of every notebook panel, and a
 * comm a kernel opens is bound to the panel whose session owns *that* kernel, never to
 * whichever tab is current.
 */
import type { Contents, Kernel, KernelMessage } from '@jupyterlab/services';
import type { INotebookTracker, NotebookPanel } from '@jupyterlab/notebook';

import { applyOps } from './ops';
import { isRecord } from './nbjson';
import { samePath } from './paths';
import {
  COMM_TARGET,
  IResponseMessage,
  OpResult,
  OutgoingMessage,
  PROTOCOL_VERSION
} from './protocol';
import { ReviewMarks } from './review';
import { watchStaticViews } from './staticViews';
import { watchAgentCells } from './agentCells';
import { SharedNotebookDoc } from './sharedDoc';
import { TouchedCells } from './touched';
import { parseRequest } from './validate';

type CommData = Parameters<Kernel.IComm['send']>[0];

/** Random per page: not a secret, only tells the kernel which page answered. */
function newClientId(): string {
  const bytes = new Uint8Array(8);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, b => b.toString(16).padStart(2, '0')).join('');
}

/** Runs a follow-up step whose failure must not cost the kernel its response. */
function guarded(what: string, fn: () => void): void {
  try {
    fn();
  } catch (e) {
    console.warn(`jupyter-agent: ${what} failed`, e);
  }
}

/** One open comm, bound to one panel. */
class CommSession {
  /** Requests run one after another, and only once the document has loaded. */
  private queue: Promise<void>;
  private closed = false;

  constructor(
    private readonly panel: NotebookPanel,
    private readonly comm: Kernel.IComm,
    private readonly bridge: NotebookBridge
  ) {
    // A notebook that fails to load still answers (with errors) rather than never.
    this.queue = panel.context.ready.catch(() => undefined);
    comm.onMsg = msg => {
      const data: unknown = msg.content.data;
      this.queue = this.queue
        .then(() => this.handle(data))
        .catch(e => console.error('jupyter-agent: request failed', e));
    };
    comm.onClose = () => this.dispose();
    panel.context.pathChanged.connect(this.onPathChanged, this);
    panel.disposed.connect(this.close, this);
    this.queue = this.queue.then(() =>
      this.send({
        type: 'hello',
        path: this.path,
        protocol: PROTOCOL_VERSION,
        client_id: this.bridge.clientId
      })
    );
  }

  private get path(): string {
    return this.bridge.localPath(this.panel.context.path);
  }

  private send(message: OutgoingMessage): void {
    if (!this.closed && !this.comm.isDisposed) {
      // The message types are plain JSON; the comm's parameter type cannot see that.
      this.comm.send(message as unknown as CommData);
    }
  }

  private onPathChanged(): void {
    this.send({ type: 'path_changed', path: this.path });
  }

  private handle(data: unknown): void {
    const parsed = parseRequest(data);
    if (parsed.kind === 'ignore') {
      return;
    }
    if (parsed.kind === 'invalid') {
      this.send(parsed.response);
      return;
    }
    const { request } = parsed;
    if (request.client_id !== undefined && request.client_id !== this.bridge.clientId) {
      return; // addressed to another page showing the same kernel
    }
    this.send({
      type: 'response',
      request_id: request.request_id,
      results: this.apply(request.ops),
      open_notebooks: this.bridge.openNotebooks()
    } satisfies IResponseMessage);
  }

  private apply(ops: unknown[]): OpResult[] {
    const model = this.panel.model;
    if (model === null || !this.panel.context.isReady) {
      return ops.map(() => ({
        ok: false,
        error: 'EXECUTION_ERROR',
        message: `the notebook ${this.path} is not loaded in the browser`
      }));
    }
    const withOutputs = new Set<string>();
    const doc = new SharedNotebookDoc({
      model: model.sharedModel,
      path: this.path,
      onOutputs: id => withOutputs.add(id)
    });
    const touched = this.bridge.touchedFor(this.panel);
    const pending = this.bridge.reviewFor(this.panel).pending;
    // The agent's own changes: neither a user edit that clears a mark nor one that refuses a question.
    const applied = touched.whileApplying(() => pending.whileApplying(() => applyOps(doc, ops)));
    guarded('trusting outputs', () => this.trust(withOutputs));
    guarded('marking cells', () => touched.mark(applied.touched));
    return applied.results;
  }

  /**
   * Outputs the kernel wrote after running a cell are trusted like those of a cell the
   * user runs (JupyterLab trusts a cell when it executes it); otherwise HTML and widget
   * outputs would show only as plain text.
   */
  private trust(ids: Set<string>): void {
    const cells = this.panel.model?.cells;
    if (ids.size === 0 || cells === undefined) {
      return;
    }
    for (let i = 0; i < cells.length; i++) {
      const cell = cells.get(i);
      if (ids.has(cell.id)) {
        cell.trusted = true;
      }
    }
  }

  /** The panel went away: tell the kernel, which then falls back to the file. */
  private close(): void {
    if (!this.closed && !this.comm.isDisposed) {
      this.comm.close({ reason: 'notebook closed' });
    }
    this.dispose();
  }

  private dispose(): void {
    if (this.closed) {
      return;
    }
    this.closed = true;
    this.panel.context.pathChanged.disconnect(this.onPathChanged, this);
    this.panel.disposed.disconnect(this.close, this);
  }
}

export class NotebookBridge {
  readonly clientId = newClientId();
  private readonly registered = new WeakSet<Kernel.IKernelConnection>();
  private readonly touched = new Map<NotebookPanel, TouchedCells>();
  private readonly review = new Map<NotebookPanel, ReviewMarks>();

  constructor(
    private readonly tracker: INotebookTracker,
    private readonly contents: Contents.IManager
  ) {}

  /** Start serving a panel: now for its current kernel, later for every new one. */
  watch(panel: NotebookPanel): void {
    if (this.touched.has(panel)) {
      return;
    }
    this.touched.set(panel, new TouchedCells(panel));
    watchStaticViews(panel);
    watchAgentCells(panel);
    panel.sessionContext.kernelChanged.connect((_, change) => {
      if (change.newValue !== null) {
        this.register(change.newValue);
        this.newReview(panel).connect(change.newValue); // a new kernel has no review yet
      }
    });
    const kernel = panel.sessionContext.session?.kernel;
    if (kernel) {
      this.register(kernel);
      this.reviewFor(panel).connect(kernel); // after a reload: the kernel sends the marks again
    }
    panel.disposed.connect(() => {
      this.touched.get(panel)?.dispose();
      this.touched.delete(panel);
      this.review.get(panel)?.dispose();
      this.review.delete(panel);
    });
  }

  /** Server-relative path, without a drive prefix such as "RTC:". */
  localPath(path: string): string {
    return this.contents.localPath(path);
  }

  /** Every notebook open in this page (server-relative): the kernel never writes their files on disk. */
  openNotebooks(): string[] {
    return this.tracker
      .filter(panel => !panel.isDisposed)
      .map(panel => this.localPath(panel.context.path));
  }

  touchedFor(panel: NotebookPanel): TouchedCells {
    let touched = this.touched.get(panel);
    if (touched === undefined) {
      touched = new TouchedCells(panel);
      this.touched.set(panel, touched);
    }
    return touched;
  }

  reviewFor(panel: NotebookPanel): ReviewMarks {
    return this.review.get(panel) ?? this.newReview(panel);
  }

  private newReview(panel: NotebookPanel): ReviewMarks {
    this.review.get(panel)?.dispose();
    const marks = new ReviewMarks(panel, () => this.localPath(panel.context.path));
    this.review.set(panel, marks);
    return marks;
  }

  /**
   * Only one connection per kernel in a page handles comms (JupyterLab's KernelManager
   * picks the first); registering on all of them means whichever it is has the target.
   */
  private register(kernel: Kernel.IKernelConnection): void {
    if (this.registered.has(kernel)) {
      return;
    }
    this.registered.add(kernel);
    kernel.registerCommTarget(COMM_TARGET, (comm, msg) => this.open(kernel, comm, msg));
  }

  private open(
    kernel: Kernel.IKernelConnection,
    comm: Kernel.IComm,
    msg: KernelMessage.ICommOpenMsg
  ): void {
    const data: unknown = msg.content.data;
    const wanted =
      isRecord(data) && typeof data.notebook_path === 'string' ? data.notebook_path : null;
    const panel = this.choosePanel(kernel.id, wanted);
    if (panel === null) {
      comm.close({ reason: 'no open notebook uses this kernel' });
      return;
    }
    // Lives as long as the comm does: the comm's handlers hold it.
    new CommSession(panel, comm, this);
    // The agent is loaded in this kernel: ask it for the review marks (a no-op when asked already).
    this.reviewFor(panel).connect(kernel);
  }

  /**
   * The panel whose session runs kernel `kernelId`. Several panels can share one kernel;
   * then the one showing the notebook the kernel names wins, else the first one opened.
   */
  private choosePanel(kernelId: string, wanted: string | null): NotebookPanel | null {
    const candidates = this.tracker.filter(
      panel => !panel.isDisposed && panel.sessionContext.session?.kernel?.id === kernelId
    );
    if (wanted !== null) {
      const match = candidates.find(panel => samePath(this.localPath(panel.context.path), wanted));
      if (match !== undefined) {
        return match;
      }
    }
    return candidates[0] ?? null;
  }
}
