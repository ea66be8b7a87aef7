"""The ten scripted trajectories (issue #42, item 6): realistic requests on scikit-learn's bundled data sets.

Each lists the calls a good model makes given the prompt: `"new"` with the issue's contracts (in-cell edits,
`after_cell_id`, `cell_ids`, errors that name the id), `"baseline"` with what today's contracts need for the same
task (a whole-cell rewrite, one NotebookRead per cell). The checks live in test_model_view_trajectories.py.
"""

from __future__ import annotations

from typing import Any

from frontend import Execution, KernelFrontend
from trajectory_harness import Trajectory, answer, call, calls, id_named

from jupyter_agent.testing import Block, ToolUse

IMPORTS = "import pandas as pd\nimport numpy as np\nfrom sklearn import datasets"

# 1. find the bug in a loader cell and fix it in-cell
LOADER = (
    "wine = datasets.load_wine(as_frame=True)\n"
    "wine_df = wine.frame.copy()\n"
    "wine_df.columns = [c.replace('/', '_') for c in wine_df.columns]\n"
    "wine_df = wine_df[wine_df['alcohol'] > 100]  # keep plausible readings\n"
    "print(len(wine_df), 'rows')"
)
LOADER_FIXED = LOADER.replace("> 100]", "> 10]")
loader_bug = Trajectory(
    name="loader_bug",
    request="wine_df comes out empty after the loader. Find the bug and fix it.",
    cells=[
        ("imports", IMPORTS),
        ("wine_load", LOADER),
        ("wine_stats", "wine_df.groupby('target').mean().round(2)"),
    ],
    turns={
        "baseline": [
            call("NotebookRead", cell_id="wine_load"),
            call("NotebookEdit", cell_id="wine_load", new_source=LOADER_FIXED),
            call("RunCell", cell_id="wine_load"),
            answer(
                "The filter compared alcohol (11–15 %) with 100; it keeps readings above 10 now: 178 rows."
            ),
        ],
        "new": [
            call("NotebookRead", cell_id="wine_load"),
            call(
                "NotebookEdit",
                cell_id="wine_load",
                edit_mode="replace",
                old_string="wine_df['alcohol'] > 100]",
                new_string="wine_df['alcohol'] > 10]",
            ),
            call("RunCell", cell_id="wine_load"),
            answer(
                "The filter compared alcohol (11–15 %) with 100; it keeps readings above 10 now: 178 rows."
            ),
        ],
    },
)

# 2. add a chart after the cleaning cell
IRIS_LOAD = "iris = datasets.load_iris(as_frame=True)\niris_df = iris.frame"
IRIS_CLEAN = "iris_df = iris_df.dropna().rename(columns=lambda c: c.replace(' (cm)', '').replace(' ', '_'))"
IRIS_MODEL = "iris_means = iris_df.groupby('target').mean()"
CHART = (
    "import matplotlib.pyplot as plt\n"
    "fig, ax = plt.subplots(figsize=(4, 3))\n"
    "iris_df.boxplot(column='petal_length', by='target', ax=ax)\n"
    "plt.show()"
)
_new_cell = id_named(r"[Ii]nserted[^']*'([0-9a-zA-Z_-]+)'", "")


def _run_inserted(body: dict[str, Any]) -> list[Block]:
    return [ToolUse(name="RunCell", input={"cell_id": _new_cell(body)})]


chart_after_cleaning = Trajectory(
    name="chart_after_cleaning",
    request="Add a chart of petal length by species right after the cleaning cell.",
    cells=[
        ("imports", IMPORTS),
        ("iris_load", IRIS_LOAD),
        ("iris_clean", IRIS_CLEAN),
        ("iris_model", IRIS_MODEL),
    ],
    turns={
        "baseline": [
            call("NotebookRead"),
            call(
                "NotebookEdit", edit_mode="insert", cell_id="iris_clean", cell_type="code", new_source=CHART
            ),
            _run_inserted,
            answer("Added a box plot of petal length by species below the cleaning cell."),
        ],
        "new": [
            call("NotebookRead"),
            call(
                "NotebookEdit",
                edit_mode="insert",
                after_cell_id="iris_clean",
                cell_type="code",
                new_source=CHART,
            ),
            _run_inserted,
            answer("Added a box plot of petal length by species below the cleaning cell."),
        ],
    },
)

# 3. summarise a 60-cell notebook: the outline, then a few cells


def _long_notebook() -> list[tuple[str, str]]:
    cells = [("imports", IMPORTS), ("d_load", "diab = datasets.load_diabetes(as_frame=True).frame")]
    columns = ["age", "sex", "bmi", "bp", "s1", "s2", "s3", "s4", "s5", "s6"]
    for n in range(58):
        column = columns[n % len(columns)]
        if n % 3 == 0:
            cells.append((f"md{n}", f"## Step {n}: {column}\nLooking at `{column}` against the target."))
        elif n % 3 == 1:
            cells.append((f"c{n}", f"diab[['{column}', 'target']].describe()"))
        else:
            cells.append(
                (
                    f"c{n}",
                    f"r_{n} = diab['{column}'].corr(diab['target'])\nprint('{column}', round(r_{n}, 3))",
                )
            )
    return cells


LONG = _long_notebook()
summarise_60 = Trajectory(
    name="summarise_60",
    request="Summarise what this notebook found about the diabetes data.",
    cells=LONG,
    markdown=frozenset(cell_id for cell_id, _ in LONG if cell_id.startswith("md")),
    turns={
        "baseline": [
            call("NotebookRead"),
            calls(("NotebookRead", {"cell_id": "c2"}), ("NotebookRead", {"cell_id": "c5"})),
            call("NotebookRead", cell_id="c8"),
            answer("bmi (r≈0.59) and s5 (r≈0.57) track the target most; age and sex little."),
        ],
        "new": [
            call("NotebookRead"),
            call("NotebookRead", cell_ids=["c2", "c5", "c8"]),
            answer("bmi (r≈0.59) and s5 (r≈0.57) track the target most; age and sex little."),
        ],
    },
)

# 4. retrain with new parameters
BC_LOAD = "bc = datasets.load_breast_cancer()\nX, y = bc.data, bc.target"
BC_SPLIT = "from sklearn.model_selection import train_test_split\nX_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0)"
BC_TRAIN = (
    "from sklearn.linear_model import LogisticRegression\n"
    "from sklearn.pipeline import make_pipeline\n"
    "from sklearn.preprocessing import StandardScaler\n"
    "clf = make_pipeline(StandardScaler(), LogisticRegression(C=1.0, max_iter=500))\n"
    "clf.fit(X_tr, y_tr)"
)
BC_SCORE = "accuracy = clf.score(X_te, y_te)\nprint(f'accuracy {accuracy:.3f}')"
retrain = Trajectory(
    name="retrain",
    request="Retrain the classifier with C=0.1 and tell me the test accuracy.",
    cells=[
        ("imports", IMPORTS),
        ("bc_load", BC_LOAD),
        ("bc_split", BC_SPLIT),
        ("bc_train", BC_TRAIN),
        ("bc_score", BC_SCORE),
    ],
    turns={
        "baseline": [
            call("NotebookRead", cell_id="bc_train"),
            call("NotebookEdit", cell_id="bc_train", new_source=BC_TRAIN.replace("C=1.0", "C=0.1")),
            call("RunCell", cell_ids=["bc_train", "bc_score"]),
            answer("With C=0.1 the test accuracy is in the score cell's output."),
        ],
        "new": [
            call("NotebookRead", cell_id="bc_train"),
            call(
                "NotebookEdit",
                cell_id="bc_train",
                edit_mode="replace",
                old_string="C=1.0",
                new_string="C=0.1",
            ),
            call("RunCell", cell_ids=["bc_train", "bc_score"]),
            answer("With C=0.1 the test accuracy is in the score cell's output."),
        ],
    },
)

# 5. fix a cell the user calls "cell 7"
POSITION_CELLS = [
    ("imports", IMPORTS),
    ("p_load", "wine2 = datasets.load_wine(as_frame=True).frame"),
    ("p_head", "wine2.shape"),
    ("p_cols", "list(wine2.columns[:4])"),
    ("p_mean", "wine2['alcohol'].mean().round(2)"),
    ("p_std", "wine2['alcohol'].std().round(2)"),
    ("p_broken", "wine2['proline_per_alcohol'] = wine2['prolin'] / wine2['alcohol']"),
    ("p_count", "wine2['target'].value_counts().sort_index().tolist()"),
    ("p_ratio", "ratio = wine2['malic_acid'] / wine2['ash']\nratio.mean().round(3)"),
]
BROKEN_SOURCE = POSITION_CELLS[6][1]
POSITION = "7"
_at_position = id_named(r"cell '([A-Za-z0-9_-]+)'", "p_broken")


def _read_named(body: dict[str, Any]) -> list[Block]:
    return [ToolUse(name="NotebookRead", input={"cell_id": _at_position(body)})]


def _fix_named_new(body: dict[str, Any]) -> list[Block]:
    return [
        ToolUse(
            name="NotebookEdit",
            input={
                "cell_id": "p_broken",
                "edit_mode": "replace",
                "old_string": "'prolin'",
                "new_string": "'proline'",
            },
        )
    ]


fix_by_position = Trajectory(
    name="fix_by_position",
    request="Cell 7 raises a KeyError, please fix it.",
    cells=POSITION_CELLS,
    unrun=frozenset({"p_broken"}),
    turns={
        "baseline": [
            call("NotebookRead", cell_id=POSITION),
            call("NotebookRead"),
            call(
                "NotebookEdit",
                cell_id="p_broken",
                new_source=BROKEN_SOURCE.replace("'prolin'", "'proline'"),
            ),
            call("RunCell", cell_id="p_broken"),
            answer("The column is 'proline'; the ratio is computed now."),
        ],
        "new": [
            call("NotebookRead", cell_id=POSITION),
            _read_named,
            _fix_named_new,
            call("RunCell", cell_id="p_broken"),
            answer("The column is 'proline'; the ratio is computed now."),
        ],
    },
)

# 6. inspect a DataFrame without printing it whole
inspect_frame = Trajectory(
    name="inspect_frame",
    request="What's in diab_df? Columns, size, anything odd?",
    cells=[
        ("imports", IMPORTS),
        ("i_load", "diab_df = datasets.load_diabetes(as_frame=True, scaled=False).frame"),
    ],
    turns={
        "new": [
            call("Inspect", name="diab_df"),
            call("RunCode", code="diab_df.isna().sum().sum(), diab_df['sex'].value_counts().to_dict()"),
            answer("442 rows × 11 columns, no missing values, sex coded 1/2."),
        ]
    },
)

# 7. a long-running print, capped with a marker
long_print = Trajectory(
    name="long_print",
    request="Print every wine's proline and class so I can eyeball them.",
    cells=[("imports", IMPORTS), ("l_load", "wine3 = datasets.load_wine(as_frame=True).frame")],
    turns={
        "new": [
            call(
                "RunCode",
                code="for rep in range(30):\n    for i, row in wine3.iterrows():\n        print(rep, i, row['proline'], int(row['target']))",
            ),
            answer("Printed 5,340 lines; the output is cut in the middle, the head and tail are shown."),
        ]
    },
)


# 8. a denial, then an adjusted call
def deny_then_allow(frontend: KernelFrontend, execution: Execution) -> None:
    frontend.wait(lambda: bool(frontend.buttons("Deny with message")), 60, "the first approval")
    asked = len(frontend.buttons("Allow once"))
    frontend.set_text("Tell the agent", "don't re-run the training, check on a sample with RunCode")
    frontend.click("Deny with message")
    frontend.wait(
        lambda: len(frontend.buttons("Allow once")) > asked or execution.done, 60, "the second approval"
    )
    if not execution.done:
        frontend.click("Allow once")


denial = Trajectory(
    name="denial",
    request="Check whether the classifier's accuracy holds on the first 100 test rows.",
    cells=[("imports", IMPORTS), ("bc_load", BC_LOAD), ("bc_split", BC_SPLIT), ("bc_train", BC_TRAIN)],
    mode="default",
    drive=deny_then_allow,
    turns={
        "new": [
            call("RunCell", cell_id="bc_train"),
            call("RunCode", code="round(clf.score(X_te[:100], y_te[:100]), 3)"),
            answer("On the first 100 test rows the accuracy is shown above; the model was not retrained."),
        ]
    },
)

# 9. an edit refused because the cell was never read, then recovered
STALE_SOURCE = (
    "wine4 = datasets.load_wine(as_frame=True).frame\nwine4['colour'] = wine4['color_intensity'].round()"
)
not_read = Trajectory(
    name="not_read",
    request="Round colour to one decimal instead of an integer.",
    cells=[("imports", IMPORTS), ("s_load", STALE_SOURCE)],
    turns={
        "new": [
            call(
                "NotebookEdit",
                cell_id="s_load",
                edit_mode="replace",
                old_string=".round()",
                new_string=".round(1)",
            ),
            call("NotebookRead", cell_id="s_load"),
            call(
                "NotebookEdit",
                cell_id="s_load",
                edit_mode="replace",
                old_string=".round()",
                new_string=".round(1)",
            ),
            answer("colour is rounded to one decimal now."),
        ],
        "baseline": [
            call("NotebookEdit", cell_id="s_load", new_source=STALE_SOURCE.replace(".round()", ".round(1)")),
            call("NotebookRead", cell_id="s_load"),
            call("NotebookEdit", cell_id="s_load", new_source=STALE_SOURCE.replace(".round()", ".round(1)")),
            answer("colour is rounded to one decimal now."),
        ],
    },
)

# 10. a sub-agent (Task) summary
subagent = Trajectory(
    name="subagent",
    request="Have a helper look through the notebook and tell me which features it found strongest.",
    cells=LONG[:20],
    markdown=frozenset(cell_id for cell_id, _ in LONG[:20] if cell_id.startswith("md")),
    turns={
        "new": [
            call(
                "Task",
                description="Find the strongest features",
                prompt="Read this notebook's correlation cells and report which features correlate most with the target, with the numbers.",
                subagent_type="Explore",
            ),
            call("NotebookRead"),  # the sub-agent's own turn
            answer("bmi 0.586 and s5 0.566 correlate most with the target; age 0.188."),
            answer("The helper found bmi (0.586) and s5 (0.566) strongest."),
        ]
    },
)

# 11. the model tries to run the running %%agent cell, is told why not, and runs the cell it meant
agent_cell = Trajectory(
    name="agent_cell",
    request="Re-run the loading cell so iris2 is fresh.",
    cells=[
        ("imports", IMPORTS),
        ("a_load", "iris2 = datasets.load_iris(as_frame=True).frame\nprint(iris2.shape)"),
    ],
    turns={
        "new": [
            call("RunCell", cell_id="agent"),
            call("RunCell", cell_id="a_load"),
            answer("Re-ran the loading cell: iris2 is 150 × 5."),
        ]
    },
)

TRAJECTORIES = [
    loader_bug,
    chart_after_cleaning,
    summarise_60,
    retrain,
    fix_by_position,
    inspect_frame,
    long_print,
    denial,
    not_read,
    subagent,
    agent_cell,
]
