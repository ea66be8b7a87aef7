"""The kernel journal in a real kernel: what the agent's RunCode and RunCell change in the user's variables comes
back with `%agent undo` and `%agent rewind`, compared by value; a change the user made after the run is kept;
what cannot be kept is said before the call (the approval) and after it (the result the model reads, and undo).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from frontend import AgentKernel, KernelFrontend, outcome_of, result_text, tool_results

from jupyter_agent.testing import Text, ToolUse, Turn

pytestmark = pytest.mark.kernel

#: Each variable's value as JSON, so a restored object is compared by value (a DataFrame by its data, dtypes
#: and labels, an array by its items and dtype, an object by its attributes).
SNAPSHOT = """
import json as _json
def _value(v):
    if type(v).__module__.startswith('pandas'):
        return {'frame': v.to_json(orient='split'), 'dtypes': [str(t) for t in v.dtypes]}
    if type(v).__module__.startswith('numpy'):
        return {'array': v.tolist(), 'dtype': str(v.dtype)}
    if hasattr(v, '__dict__') and not callable(v):
        return {'attrs': {k: _value(x) for k, x in vars(v).items()}}
    return v
print('OUTCOME ' + _json.dumps({n: _value(globals()[n]) if n in globals() else 'MISSING' for n in NAMES}))
"""


def values(frontend: KernelFrontend, *names: str) -> dict[str, Any]:
    shown = frontend.run(f"NAMES = {list(names)!r}\n{SNAPSHOT}")
    return outcome_of(shown.text())


def run_code(*codes: str) -> list[Turn]:
    return [
        *(Turn(blocks=[ToolUse(name="RunCode", input={"code": code})]) for code in codes),
        Turn(blocks=[Text("done")]),
    ]


def agent(frontend: KernelFrontend, request: str = "go") -> str:
    cell = frontend.run(f"%%agent --allow RunCode\n{request}", timeout=90)
    assert cell.reply is not None and cell.reply["status"] == "ok", cell.text()
    return cell.text()


def first_result(server: Any, request: int = 1) -> str:
    return result_text(tool_results(server.requests[request])[0])


def test_the_first_example_of_the_issue_comes_back_exactly_with_undo(agent_kernel: AgentKernel) -> None:
    frontend, server = agent_kernel(run_code("del important; model['weights'].clear()"), headless=True)
    frontend.run("important = [1, 2, 3]; model = {'weights': list(range(5))}")
    agent(frontend)
    assert values(frontend, "important", "model") == {"important": "MISSING", "model": {"weights": []}}
    assert first_result(server).endswith(
        "[kernel variables this code changed — %agent undo restores: important (deleted), model (changed in place)]"
    )

    said = frontend.run("%agent undo", timeout=60).text()

    assert "restored 2 variables (important, model)" in said
    assert values(frontend, "important", "model") == {
        "important": [1, 2, 3],
        "model": {"weights": [0, 1, 2, 3, 4]},
    }
    assert frontend.run("%agent undo").text().strip() == "nothing to undo"


def test_the_second_example_of_the_issue_comes_back_exactly_with_rewind(agent_kernel: AgentKernel) -> None:
    frontend, _ = agent_kernel(run_code("n = 0; labels[0] = 'zzz'"), headless=True)
    frontend.run("n = 3; labels = ['cat', 'dog']")
    agent(frontend)
    assert frontend.run("print(n, labels[0])").text().strip() == "0 zzz"

    said = frontend.run("%agent rewind", timeout=60).text()

    assert "restored 2 variables (labels, n)" in said
    assert frontend.run("print(n, labels[0])").text().strip() == "3 cat"
    assert values(frontend, "labels") == {"labels": ["cat", "dog"]}


SETUP = """
import numpy as np, pandas as pd
class Settings:
    def __init__(self):
        self.threshold = 0.5
        self.tags = ['a']
x = 'old'; y = [1]; lst = [1, 2]; d = {'k': 1, 'nested': {'n': [1]}}
df = pd.DataFrame({'a': [1, 2, 3], 'b': [0.5, 1.5, 2.5]}); arr = np.arange(4, dtype='int64'); cfg = Settings()
"""
#: One kind of change a test each: what the agent runs, and the names whose values must come back.
KINDS = {
    "rebind": ("x = 'new'", ["x"]),
    "delete": ("del y", ["y"]),
    "list in place": ("lst.append(3); lst[0] = 0", ["lst"]),
    "dict in place": ("d['k'] = 2; d['nested']['n'].append(2); del d['k']", ["d"]),
    "DataFrame in place": (
        "df.loc[0, 'a'] = 99; df['c'] = df['a'] * 2; df.drop(columns='b', inplace=True)",
        ["df"],
    ),
    "ndarray in place": ("arr += 1; arr[0] = 100", ["arr"]),
    "attribute set": ("cfg.threshold = 0.9; cfg.tags.append('b'); cfg.extra = 1", ["cfg"]),
    "name created": ("tmp = [0] * 3; total = sum(lst)", ["tmp", "total"]),
}


@pytest.mark.parametrize("kind", list(KINDS))
def test_each_kind_of_change_is_undone_and_compared_by_value(agent_kernel: AgentKernel, kind: str) -> None:
    code, names = KINDS[kind]
    frontend, _ = agent_kernel(run_code(code), headless=True)
    frontend.run(SETUP)
    before = values(frontend, *names)
    agent(frontend)
    assert values(frontend, *names) != before, f"the agent's code changed nothing ({kind})"

    said = frontend.run("%agent undo", timeout=60).text()

    assert values(frontend, *names) == before, said
    verb = "removed" if kind == "name created" else "restored"
    assert f"{verb} {len(names)} variable" in said


def test_a_change_the_user_made_after_the_run_survives_undo(agent_kernel: AgentKernel) -> None:
    frontend, _ = agent_kernel(run_code("rows.append('agent'); x = 5; scratch = 1"), headless=True)
    frontend.run("rows = ['user']; x = 1")
    agent(frontend)
    frontend.run("rows.append('user again'); x = 7")  # the user goes on working on both

    said = frontend.run("%agent undo", timeout=60).text()

    assert values(frontend, "rows", "x", "scratch") == {
        "rows": ["user", "agent", "user again"],
        "x": 7,
        "scratch": "MISSING",
    }
    assert "removed 1 variable (scratch)" in said
    assert "skipped variable rows: it changed after the agent's code ran (you changed it in place)" in said
    assert "skipped variable x: it holds another object since the agent's code ran (you assigned it)" in said
    assert "some changes were kept" in said


def test_rewind_restores_the_variables_of_every_rewound_run(agent_kernel: AgentKernel) -> None:
    script = [*run_code("total = 10"), *run_code("total += 5; extra = total")]
    frontend, _ = agent_kernel(script, headless=True)
    frontend.run("total = 1")
    agent(frontend, "first")
    agent(frontend, "second")
    assert values(frontend, "total", "extra") == {"total": 15, "extra": 15}

    said = frontend.run("%agent rewind 1", timeout=60).text()

    assert values(frontend, "total", "extra") == {"total": 1, "extra": "MISSING"}
    assert "restored 1 variable (total), removed 1 (extra)" in said  # run 2
    assert "restored 1 variable (total)" in said  # run 1


def test_what_cannot_be_kept_is_said_in_the_approval_in_the_result_and_by_undo(
    agent_kernel: AgentKernel,
) -> None:
    code = "big[:] = 0; stream.readline(); small.append(1)"
    frontend, server = agent_kernel(run_code(code))
    frontend.run(
        "import io, numpy as np\n%config AgentMagics.kernel_undo_budget_mb = 1\n"
        "big = np.ones(300_000); stream = io.StringIO('a\\nb\\n'); small = [0]"
    )
    cell = frontend.execute("%%agent\ngo")
    frontend.wait(lambda: bool(frontend.buttons("Allow once")), 60, "the approval")
    note = next(
        str(w.state.get("value"))
        for w in frontend.widgets.values()
        if "jp-agent-approval-note" in str(w.state.get("value", ""))
    )
    assert (
        "this call may change big (2.3 MB, not restorable: more than the 1.0 MB kernel_undo_budget_mb allows), "
        "stream (not restorable: an open file cannot be copied); %agent undo can restore small" in note
    )
    frontend.click("Allow once")
    frontend.wait(lambda: cell.done, 90, "the agent cell")
    assert first_result(server).endswith(
        "[kernel variables this code changed — %agent undo restores: small (changed in place); not restorable: "
        "big (may have changed in place; 2.3 MB, more than the 1.0 MB kernel_undo_budget_mb allows), "
        "stream (may have changed in place; an open file cannot be copied)]"
    )

    said = frontend.run("%agent undo", timeout=60).text()

    assert (
        "restored 1 variable (small); not restorable: big (2.3 MB, more than the 1.0 MB kernel_undo_budget_mb "
        "allows), stream (an open file cannot be copied)" in said
    )
    assert values(frontend, "small") == {"small": [0]}
    assert frontend.run("print(big.sum())").text().strip() == "0.0"  # not restored, as said
    assert "some changes were kept" not in said  # nothing is left for a second undo to try
    assert frontend.run("%agent undo").text().strip() == "nothing to undo"


def test_a_copy_dropped_for_newer_ones_is_reported_by_undo(agent_kernel: AgentKernel) -> None:
    script = [*run_code("a[:] = 1"), *run_code("b[:] = 2")]
    frontend, _ = agent_kernel(script, headless=True)
    frontend.run(
        "import numpy as np\n%config AgentMagics.kernel_undo_budget_mb = 3\n"
        "a = np.zeros(250_000); b = np.zeros(250_000)"  # 1.9 MB each: the budget holds one copy
    )
    agent(frontend, "first")
    agent(frontend, "second")

    second = frontend.run("%agent undo", timeout=60).text()
    first = frontend.run("%agent undo", timeout=60).text()

    assert "undo run 2:" in second and "restored 1 variable (b)" in second
    assert "undo run 1:" in first
    assert (
        "not restorable: a (its 1.9 MB copy was dropped to stay within the 3.0 MB kernel_undo_budget_mb; "
        "newer copies took its place)" in first
    )
    assert frontend.run("print(a.sum(), b.sum())").text().strip() == "250000.0 0.0"


def test_review_lists_the_variables_with_undo_and_the_page_marks_nothing_for_them(
    agent_kernel: AgentKernel,
) -> None:
    from test_review_in_kernel import open_review_comm, reviews

    frontend, _ = agent_kernel(run_code("model['weights'].clear(); tmp = 1"), headless=True)
    page = open_review_comm(frontend)
    frontend.run("model = {'weights': [1, 2]}")
    agent(frontend)

    review = frontend.run("%agent review").text()
    assert "run 1  variable model  changed  in place  pending" in review
    assert "run 1  variable tmp    added" in review
    assert reviews(page) == []  # variables are not cells: the page shows no mark for them

    said = frontend.run("%agent review undo model", timeout=60).text()

    assert said.strip() == "restored variable model"
    assert values(frontend, "model", "tmp") == {"model": {"weights": [1, 2]}, "tmp": 1}
    assert "run 1  variable model  changed  in place  undone" in frontend.run("%agent review 1").text()
    assert reviews(page) == []


def test_verify_notebook_leaves_every_variable_of_this_kernel_as_it_was(
    agent_kernel: AgentKernel, tmp_path: Path
) -> None:
    from test_verify_notebook import verify_result, verify_then_answer, write_notebook

    # The notebook's cell would clobber the user's work if it ran here: it runs in a fresh kernel only.
    write_notebook(
        tmp_path / "analysis.ipynb", [("c1", "important = []\nmodel = None\ndf = None\nprint('fresh')")]
    )
    frontend, server = agent_kernel(verify_then_answer(), headless=True)
    frontend.run(SETUP + "important = [1, 2, 3]; model = {'weights': list(range(5))}")
    names = ("important", "model", "df", "arr", "cfg", "x", "lst", "d")
    before = values(frontend, *names)
    ids_before = identities(frontend)

    frontend.run("%%agent --allow VerifyNotebook\ncheck it", timeout=180)

    assert identities(frontend) == ids_before  # the same objects under the same names, no name added or gone
    assert values(frontend, *names) == before
    block, text = verify_result(server.requests)
    assert not block.get("is_error") and text.startswith("analysis.ipynb runs clean")
    assert "kernel variables" not in text  # nothing ran here, so nothing is journaled
    assert frontend.run("%agent undo").text().strip() == "nothing to undo"


def identities(frontend: KernelFrontend) -> dict[str, int]:
    """Every user name and the id of the object it holds (IPython's `_`-names aside)."""
    code = "print('OUTCOME ' + __import__('json').dumps({k: id(v) for k, v in globals().items() if k[0] != '_'}))"
    return outcome_of(frontend.run(code).text())


def test_each_cell_run_cell_runs_is_journaled_and_undone(agent_kernel: AgentKernel) -> None:
    from notebook_page import NotebookPage

    from jupyter_agent.notebook.cells import new_cell_json

    script = [
        Turn(blocks=[ToolUse(name="RunCell", input={"cell_ids": ["clean", "drop"]})]),
        Turn(blocks=[Text("done")]),
    ]
    frontend, server = agent_kernel(script)
    page = NotebookPage(frontend)
    page.cells = [
        new_cell_json("code", "scores['alice'] = 0\ncleaned = True", cell_id="clean"),
        new_cell_json("code", "del raw", cell_id="drop"),
    ]
    frontend.run("scores = {'alice': 90, 'bob': 72}; raw = [3, 1, 2]")
    cell = frontend.execute("%%agent --allow RunCell\nrun them")
    frontend.wait(lambda: cell.done, 90, "the agent cell")
    assert values(frontend, "scores", "raw", "cleaned") == {
        "scores": {"alice": 0, "bob": 72},
        "raw": "MISSING",
        "cleaned": True,
    }
    text = first_result(server)
    assert (
        "[kernel variables this code changed — %agent undo restores: scores (changed in place); "
        "%agent undo removes (new): cleaned]" in text
    )
    assert "[kernel variables this code changed — %agent undo restores: raw (deleted)]" in text

    said = frontend.run("%agent undo", timeout=60).text()

    assert "restored 2 variables (raw, scores), removed 1 (cleaned)" in said
    assert values(frontend, "scores", "raw", "cleaned") == {
        "scores": {"alice": 90, "bob": 72},
        "raw": [3, 1, 2],
        "cleaned": "MISSING",
    }
    history = frontend.run("%agent history").text()
    assert "RunCell cell clean: added cleaned, changed scores in place" in history
    assert "RunCell cell drop: deleted raw" in history


#: An object deepcopy copies but pickle refuses (it holds state of its own it will not serialize).
UNPICKLABLE = """
import copy
class State:
    def __init__(self): self.steps = ['agent']
    def __reduce_ex__(self, protocol): raise TypeError('State objects are not picklable')
    def __deepcopy__(self, memo):
        made = State.__new__(State); made.steps = copy.deepcopy(self.steps, memo); return made
"""


def test_a_later_change_undo_cannot_rule_out_is_never_overwritten(agent_kernel: AgentKernel) -> None:
    """A 20 MB bytearray (over the pickle digest's limit) and an unpicklable object the agent's code made, each
    changed in place by the user afterwards: undo keeps both, and says why; `--force` still can take back what
    it could not check."""
    frontend, _ = agent_kernel(run_code("blob = bytearray(20_000_000); state = State()"), headless=True)
    frontend.run(UNPICKLABLE)
    agent(frontend)
    frontend.run("blob[123] = 7; state.steps.append('user')")  # the user goes on working on both

    said = frontend.run("%agent undo", timeout=60).text()

    assert "restored" not in said and "removed" not in said, said
    assert frontend.run("print(blob[123], state.steps)").text().strip() == "7 ['agent', 'user']"
    assert "skipped variable blob: it changed after the agent's code ran (you changed it in place)" in said
    assert (
        "skipped variable state: undo cannot tell whether you changed it since the agent's code ran "
        "(it cannot be pickled to compare: TypeError: State objects are not picklable); "
        "%agent undo --force puts it back anyway" in said
    ), said

    forced = frontend.run("%agent undo --force", timeout=60).text()

    assert "removed 1 variable (state)" in forced, forced
    assert "skipped variable blob: it changed after the agent's code ran" in forced  # force never loses that
    assert frontend.run("print('state' in globals(), blob[123])").text().strip() == "False 7"


def test_a_large_buffer_the_user_left_alone_is_undone(agent_kernel: AgentKernel) -> None:
    frontend, _ = agent_kernel(run_code("blob = bytearray(20_000_000)"), headless=True)
    agent(frontend)

    said = frontend.run("%agent undo", timeout=60).text()

    assert "removed 1 variable (blob)" in said, said
    assert frontend.run("print('blob' in globals())").text().strip() == "False"
