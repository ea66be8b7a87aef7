"""What the model is shown, step by step, in ten realistic data-analysis trajectories (issue #42, item 6).

One real kernel serves the module (tests/kernel/trajectory_harness.py); each trajectory runs its setup cells for
real, then one `%%agent --new` run whose scripted model makes the calls a good model would make
(tests/kernel/trajectories.py). Each test checks what the model read at each step (sizes, ids, markers that say
how to get more, no package internals) and the notebook and kernel afterwards.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
import trajectories as t
from trajectory_harness import INTERNALS, Run, TrajectoryKernel, figures, view_of

pytestmark = pytest.mark.kernel

#: No step of an ordinary trajectory should cost the model more than this (the 60-cell outline is the largest).
STEP_TOKENS = 4_000
#: Exploratory output (a long print) is capped well below that.
PRINT_TOKENS = 2_500


@pytest.fixture(scope="module")
def kernel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TrajectoryKernel]:
    shared = TrajectoryKernel(Path(tmp_path_factory.mktemp("trajectories")))
    yield shared
    shared.close()


def ran(kernel: TrajectoryKernel, trajectory: t.Trajectory) -> Run:
    run = kernel.run(trajectory)
    reply = run.execution.reply
    assert reply is not None and reply["status"] == "ok", run.execution.text()[-2000:]
    shown = "\n".join(run.texts())
    for internal in INTERNALS:
        assert internal not in shown, f"{trajectory.name}: the model was shown {internal!r}"
    view = figures(view_of(run.requests, run.calls))
    assert view.max <= STEP_TOKENS, (trajectory.name, view.step_tokens)
    return run


def untouched(run: Run, *changed: str) -> None:
    """Every cell but `changed` is byte-identical, in the same order."""
    before = [c for c in run.cells_before if c["id"] not in changed]
    after = [c for c in run.cells_after if c["id"] not in changed]
    assert after == before


def order(run: Run) -> list[str]:
    return [c["id"] for c in run.cells_after]


def test_the_loader_bug_is_fixed_in_the_cell_and_only_that_line_changes(kernel: TrajectoryKernel) -> None:
    run = ran(kernel, t.loader_bug)
    read, edit, rerun = run.texts()
    assert "wine_df['alcohol'] > 100]" in read
    assert "wine_load" in edit and not run.results()[1][0].get("is_error"), edit
    assert rerun.startswith("178 rows")
    assert run.cell("wine_load")["source"] == t.LOADER_FIXED
    untouched(run, "wine_load")
    assert run.value("len(wine_df)") == 178


def test_a_chart_is_inserted_after_the_cleaning_cell_and_comes_back_as_an_image(
    kernel: TrajectoryKernel,
) -> None:
    run = ran(kernel, t.chart_after_cleaning)
    inserted = run.texts()[1]
    new_id = re.search(r"cell '([^']+)' after cell 'iris_clean'", inserted)
    assert new_id is not None, inserted
    assert order(run) == ["imports", "iris_load", "iris_clean", new_id.group(1), "iris_model", "agent"]
    assert run.cell(new_id.group(1))["source"] == t.CHART
    [chart] = run.results()[2]
    assert any(part["type"] == "image" for part in chart["content"]), chart
    untouched(run, new_id.group(1))


def test_a_60_cell_notebook_is_summarised_from_its_outline_and_three_cells_in_one_read(
    kernel: TrajectoryKernel,
) -> None:
    run = ran(kernel, t.summarise_60)
    assert run.calls == 2
    outline, cells = run.texts()
    assert "61 cells" in outline and all(
        f'"{cell_id}"' in outline for cell_id, _ in t.LONG
    )  # every id listed
    for cell_id, column in (("c2", "bmi"), ("c5", "s2"), ("c8", "s5")):
        assert f'id="{cell_id}"' in cells and column in cells
    assert "bmi 0.586" in cells  # the correlation cell's output came with it
    untouched(run)


def test_retraining_changes_only_the_parameter_and_the_kernel_has_the_new_model(
    kernel: TrajectoryKernel,
) -> None:
    run = ran(kernel, t.retrain)
    assert run.cell("bc_train")["source"] == t.BC_TRAIN.replace("C=1.0", "C=0.1")
    assert "accuracy 0.9" in run.texts()[2]
    assert run.value("clf[-1].C") == 0.1
    untouched(run, "bc_train", "bc_score")


def test_cell_7_by_position_gets_an_error_naming_its_id_and_the_fix_lands_there(
    kernel: TrajectoryKernel,
) -> None:
    run = ran(kernel, t.fix_by_position)
    first = run.texts()[0]
    assert "position 7 is cell 'p_broken'" in first, first
    assert run.cell("p_broken")["source"] == t.BROKEN_SOURCE.replace("'prolin'", "'proline'")
    assert not run.results()[3][0].get("is_error"), run.texts()[3]
    assert run.value("'proline_per_alcohol' in wine2.columns") is True
    untouched(run, "p_broken")


def test_a_dataframe_is_inspected_without_printing_it_whole(kernel: TrajectoryKernel) -> None:
    run = ran(kernel, t.inspect_frame)
    described = run.texts()[0]
    assert "442 rows × 11 columns" in described
    assert "\n  441 " not in described and len(described.splitlines()) < 60
    assert figures(view_of(run.requests, run.calls)).max < 600
    untouched(run)


def test_a_long_print_is_capped_with_a_marker_that_says_how_to_get_the_rest(
    kernel: TrajectoryKernel,
) -> None:
    run = ran(kernel, t.long_print)
    [printed] = run.texts()
    assert figures(view_of(run.requests, run.calls)).max <= PRINT_TOKENS
    assert printed.startswith("0 0 1065.0 0")
    marker = [line for line in printed.splitlines() if re.search(r"\b(cut|omitted|truncated)\b", line)]
    assert len(marker) == 1, marker  # one cut layer
    assert re.search(r"\b(to see|to get|to read|for the rest)\b", marker[0]), marker[0]
    journal = "[kernel variables this code changed"  # the kernel journal's closing line
    printed_lines = [
        line for line in printed.splitlines() if line not in marker and not line.startswith(journal)
    ]
    odd = [line for line in printed_lines if not re.fullmatch(r"\d+ \d+ \d+\.0 \d", line)]
    assert not odd, odd  # no line cut in the middle


def test_a_denial_with_a_message_leads_to_an_adjusted_call_and_the_model_is_not_retrained(
    kernel: TrajectoryKernel,
) -> None:
    run = ran(kernel, t.denial)
    denied, sampled = run.texts()
    assert denied == "DENIED: RunCell: don't re-run the training, check on a sample with RunCode"
    assert sampled.startswith("Out: 0.9")
    untouched(run)  # bc_train never re-ran: no new outputs


def test_an_edit_of_a_cell_never_read_is_not_read_and_the_model_recovers(kernel: TrajectoryKernel) -> None:
    run = ran(kernel, t.not_read)
    refused, _, edited = run.texts()
    assert refused.startswith("NOT_READ: cell 's_load'") and "NotebookRead" in refused
    assert "s_load" in edited and not run.results()[2][0].get("is_error")
    assert run.cell("s_load")["source"] == t.STALE_SOURCE.replace(".round()", ".round(1)")
    untouched(run, "s_load")


def test_a_sub_agent_reads_the_notebook_and_its_report_is_the_task_result(kernel: TrajectoryKernel) -> None:
    run = ran(kernel, t.subagent)
    sub_requests = [r for r in run.requests if r["system"] != run.requests[0]["system"]]
    assert sub_requests, "the sub-agent made no request of its own"
    sub_tools = {tool["name"] for tool in sub_requests[0]["tools"]}
    assert "NotebookRead" in sub_tools and not sub_tools & {"NotebookEdit", "RunCode", "RunCell", "Write"}
    report = run.texts()[-1]
    assert "bmi 0.586 and s5 0.566" in report
    untouched(run)


def test_running_the_running_agent_cell_is_refused_with_why_and_the_meant_cell_runs(
    kernel: TrajectoryKernel,
) -> None:
    run = ran(kernel, t.agent_cell)
    refused, reran = run.texts()
    assert run.results()[0][0]["is_error"] and "%%agent" in refused, refused
    assert len(refused) < 400, refused  # a reason, not the run's internals
    assert reran.startswith("(150, 5)")
    untouched(run, "a_load")
