"""The UI side of one run: the run view, the worker's questions, the Stop button — and the wait itself.

The host submits the run to the worker and hands the future to `RunPresenter.wait`; everything the person
sees or answers during the run is decided here: where output goes (cell displays or a terminal), how a
question is asked (widgets when a frontend answers, stdin in terminal IPython, a refusal when headless).
"""

from __future__ import annotations

from concurrent.futures import CancelledError, Future
from typing import TYPE_CHECKING, Any

from ..agent.events import AgentEvent, ToolFinished
from ..builtin_tools.workflow.asking import PlanApproval, UserQuestions
from ..tools.dispatch import ApprovalRequest
from ..tools.question import Question
from .approval import NO_WIDGET_FRONTEND, ApprovalUI, offer_at_cells, question_in_words
from .at_cell import CellPages, CellQuestion, outcome_of
from .background_results import BackgroundResults
from .channel import PendingQuestion, UIChannel
from .choices import ChoicesUI
from .gate import show_widget, update_bundle, widgets
from .interrupts import InterruptLatch
from .jupyter_api import add_class, on_click
from .mainloop import MainLoop, Stoppable
from .plan_review import PlanReviewUI
from .publish import DisplayPublisher, TerminalPublisher
from .pump import ShellPump, unsupported_reason
from .questions import QuestionUI, WidgetQuestion
from .view import RunView
from .widget_tree import close_tree

if TYPE_CHECKING:
    from ..notebook.frontend import KernelSignals

#: How each kind of question is put to the person. A new kind of in-cell question is one row here.
QUESTION_UIS: dict[type[Question[Any]], QuestionUI[Any]] = {
    ApprovalRequest: ApprovalUI(),
    UserQuestions: ChoicesUI(),
    PlanApproval: PlanReviewUI(),
}


def question_ui(request: Question[Any]) -> QuestionUI[Any] | None:
    for kind in type(request).__mro__:
        ui = QUESTION_UIS.get(kind)
        if ui is not None:
            return ui
    return None


def _pump_for(kernel: Any) -> ShellPump | None:
    return ShellPump.for_kernel(kernel) if kernel is not None else None


def no_one_can_answer(kernel: Any, signals: KernelSignals | None) -> str | None:
    """Why in-cell questions cannot be answered in this run, known before asking (None: try the widgets)."""
    if kernel is None:
        return None  # a terminal asks on stdin
    missing = unsupported_reason(kernel)
    if missing is not None:
        return missing
    if signals is not None and signals.execute.allow_stdin is False:
        return (
            "the cell is run by a client that takes no input (allow_stdin is false: nbclient, papermill, "
            "nbconvert --execute or voila)"
        )
    return None


class RunPresenter:
    """Shows one `%%agent` run in the cell and answers the worker's questions; `wait` blocks until it ends.

    The only writer of a tool card's status is the run view; the presenter tells it when a question about a
    call is asked and answered.
    """

    def __init__(
        self,
        *,
        kernel: Any,
        channel: UIChannel,
        worker: Stoppable,
        quiet: bool,
        probe_timeout: float,
        signals: KernelSignals | None = None,
        at_cells: CellPages | None = None,
        background: BackgroundResults | None = None,
    ) -> None:
        self.terminal = kernel is None
        self.channel = channel
        self.worker = worker
        self.view = RunView(
            publisher=TerminalPublisher() if self.terminal else DisplayPublisher(), quiet=quiet
        )
        self.pump = _pump_for(kernel)
        self.probe_timeout = probe_timeout
        #: Why no one can answer a question in this run, once known (before the run, or by the one probe).
        self._no_answer: str | None = no_one_can_answer(kernel, signals)
        self._probed = self._no_answer is not None
        #: Where an approval about cells of the live page is shown besides the cell output (None: nowhere).
        self.at_cells = at_cells
        self._pending: list[tuple[WidgetQuestion[Any], QuestionUI[Any], CellQuestion | None]] = []
        #: Redraws a background Task's card in this cell when its sub-agent ends (None: not followed).
        self.background = background

    def wait(self, future: Future[Any], latch: InterruptLatch | None = None) -> bool:
        """Serve the run until `future` resolves; True when the user interrupted. With `latch`, an Interrupt
        after the run's end is noted there (the caller ends the cell)."""
        # No Stop button where no one could click it: it would only be saved as a dead widget (nbclient keeps
        # every widget's state in the notebook's metadata).
        stop = None if self.terminal or self._no_answer is not None else _StopButton(self.worker)
        try:
            loop = MainLoop(
                channel=self.channel, presenter=self, worker=self.worker, pump=self.pump, latch=latch
            )
            loop.wait(future)
            return loop.interrupted
        finally:
            if stop is not None:
                stop.hide()
            self._close_questions()

    def _close_questions(self) -> None:
        """Every question widget of the run is closed when it ends (one left open by an interrupt too)."""
        pending, self._pending = self._pending, []
        for widget, _ui, at_cell in pending:
            widget.close()
            if at_cell is not None:  # the page takes the marks away too
                at_cell.close("interrupted", "")

    # -- Presenter --------------------------------------------------------------------------------------
    def on_event(self, event: AgentEvent) -> None:
        self.view.handle(event)
        if self.background is not None and isinstance(event, ToolFinished):
            card, display_id = self.view.card_display(event.call_id)
            self.background.seen(event, card=card, display_id=display_id, publisher=self.view.publisher)

    def on_tick(self) -> None:
        self.view.tick()
        still: list[tuple[WidgetQuestion[Any], QuestionUI[Any], CellQuestion | None]] = []
        for pending, ui, at_cell in self._pending:
            if pending.settle():
                self._answered(pending.ask, ui, pending.outcome)
                if at_cell is not None:  # answered here or at the cell: both places close
                    at_cell.close(outcome_of(pending.outcome), pending.record or "")
            else:
                still.append((pending, ui, at_cell))
        self._pending = still

    def on_question(self, ask: PendingQuestion[Any]) -> None:
        request = ask.request
        ui = question_ui(request)
        if ui is None:
            ask.reply.set_exception(
                LookupError(f"no UI shows a {type(request).__name__}; add one to QUESTION_UIS")
            )
            return
        if request.tool_use_id:
            asked = (
                question_in_words(request).removesuffix("?") if isinstance(request, ApprovalRequest) else ""
            )
            self.view.question_asked(request.tool_use_id, request.title, asked=asked)
        if self.terminal:
            ask.answer(ui.on_stdin(request))
            return
        why = self._why_no_answer()
        if why is not None:
            ask.answer(ui.unanswered(request, why))
            return
        widget = ui.widget(ask)
        at_cell = offer_at_cells(self.at_cells, request, widget)
        widget.show()
        self._pending.append((widget, ui, at_cell))

    def _answered(self, ask: PendingQuestion[Any], ui: QuestionUI[Any], answer: Any) -> None:
        if ask.request.tool_use_id:
            self.view.question_answered(ask.request.tool_use_id, ui.card_status(answer))

    def _why_no_answer(self) -> str | None:
        """None when widgets can be answered; probed once per run, at the first question."""
        if not self._probed:
            from .probe import widget_frontend_answers

            self._probed = True
            assert self.pump is not None  # no pump: `no_one_can_answer` said why already
            if not widget_frontend_answers(self.pump, self.probe_timeout):
                self._no_answer = NO_WIDGET_FRONTEND
        return self._no_answer


class QuietPresenter:
    """For host work that runs on the worker without a view (undo): shows nothing and asks nothing."""

    def on_event(self, event: AgentEvent) -> None:
        pass

    def on_question(self, ask: PendingQuestion[Any]) -> None:
        ask.reply.cancel()  # a stray question from an earlier run is cancelled

    def on_tick(self) -> None:
        pass


def wait_quietly(*, kernel: Any, channel: UIChannel, worker: Stoppable, future: Future[Any]) -> bool:
    """Wait for `future` while comm replies keep flowing (live notebook undo); True when interrupted."""
    loop = MainLoop(channel=channel, presenter=QuietPresenter(), worker=worker, pump=_pump_for(kernel))
    try:
        loop.wait(future)
    except CancelledError:  # the coroutine let the Interrupt's cancellation through
        if not loop.interrupted:
            raise
    return loop.interrupted


class _StopButton:
    """The Stop button under the running cell: the same clean stop as Interrupt."""

    def __init__(self, worker: Stoppable) -> None:
        w = widgets()
        button = w.Button(
            description="Stop",
            icon="stop",
            tooltip="Stop the agent (same as Interrupt)",
            layout=w.Layout(width="auto"),
        )

        def stop(_button: Any) -> None:
            worker.stop_current()

        on_click(button, stop)
        add_class(button, "jp-agent-stop")
        self.button = button
        self.display_id = show_widget(button)

    def hide(self) -> None:
        close_tree(self.button)  # with its layout and style
        update_bundle({"text/plain": ""}, display_id=self.display_id)
