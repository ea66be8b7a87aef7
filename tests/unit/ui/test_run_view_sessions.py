"""The run view's part in long sessions: thinking collapsed and dimmed, compaction as one line, costs in the footer."""

from __future__ import annotations

from test_run_view import Recorder

from jupyter_agent.agent import events as ev
from jupyter_agent.ui.view import RunView


def test_thinking_streams_into_one_collapsed_dimmed_block_apart_from_the_answer() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    for piece in ("First, ", "<b>check</b> ", "the dates."):
        view.handle(ev.ThinkingDelta(text=piece))
    view.handle(ev.ThinkingDone())
    view.handle(ev.TextDelta(text="March is dropped by the parser."))
    view.handle(ev.TextDone())
    thinking_id, first = publisher.shown[0]
    assert '<details class="jp-agent-thinking" style="opacity:0.6' in first["text/html"]
    final = [b for d, b in publisher.updates if d == thinking_id][-1]
    assert "<details " in final["text/html"] and " open" not in final["text/html"]
    assert "First, &lt;b&gt;check&lt;/b&gt; the dates." in final["text/html"]  # escaped, not markup
    assert final["text/plain"] == "💭 thinking (4 words)"
    answer_ids = [d for d, b in publisher.shown if "jp-agent-text" in b["text/html"]]
    assert len(answer_ids) == 1 and answer_ids[0] != thinking_id
    answer = [b for d, b in publisher.updates if d == answer_ids[0]][-1]
    assert "check" not in answer["text/plain"]


def test_a_compaction_is_one_line() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(ev.Compacted(tokens_before=170_000, tokens_after=2_100, messages_before=48, automatic=True))
    [(_, bundle)] = publisher.shown
    assert bundle["text/plain"] == (
        "🗜️ conversation compacted: 48 messages (~170,000 tokens) replaced by the model's summary (~2,100 tokens)"
    )
    assert "\n" not in bundle["text/plain"]


def test_the_footer_shows_run_and_session_cost_and_the_cache_read_share() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(
        ev.RunFinished(
            reason="budget",
            turns=1,
            usage=ev.Usage(input=100, output=10, cache_read=300),
            cost_usd=0.0123,
            duration=1.0,
            session_cost_usd=0.5,
        )
    )
    footer = publisher.shown[-1][1]["text/plain"]
    assert "(75% read)" in footer
    assert "$0.0123 (session $0.5000)" in footer
    assert "stopped: budget" in footer


def test_the_footer_of_a_model_without_a_known_price_says_cost_n_a() -> None:
    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(
        ev.RunFinished(
            reason="end_turn",
            turns=1,
            usage=ev.Usage(input=100, output=10),
            cost_usd=0.0,
            duration=1.0,
            priced=False,
        )
    )
    footer = publisher.shown[-1][1]["text/plain"]
    assert "· cost n/a ·" in footer and "$" not in footer


def test_dollar_amounts_in_the_footer_and_tables_are_not_typeset_as_math() -> None:
    """Two `$` in one output are LaTeX to the frontend's MathJax; our own lines opt out by class."""
    from jupyter_agent.ui.tables import html_table

    publisher = Recorder()
    view = RunView(publisher=publisher)
    view.handle(
        ev.RunFinished(
            reason="end_turn", turns=1, usage=ev.Usage(input=1, output=1), cost_usd=0.01, duration=1.0,
            session_cost_usd=0.02,
        )
    )  # fmt: skip
    footer = publisher.shown[-1][1]["text/html"]
    assert (
        '<div class="jp-agent-footer mathjax_ignore tex2jax_ignore"' in footer
        and "$0.0100 (session $0.0200)" in footer
    )
    assert 'class="jp-agent-table mathjax_ignore tex2jax_ignore"' in html_table([("cost", "$1 and $2")])
