"""Mutation testing of the safety-critical modules with mutmut 3, each group against its own tests.

Run through `scripts/mutation.sh` (see there for usage). For every group this makes a work directory with
the package, the tests and a pyproject.toml whose `[tool.mutmut]` section mutates only that group's modules
and selects only its test files, runs `mutmut run`, then reads mutmut's results and prints the score and
every mutant that survived, with its diff. A survivor listed in `scripts/mutation-survivors.txt` is printed
with the argument recorded there (equivalent, or accepted and why); one that is not is marked UNEXPLAINED.

The score is killed / all mutants (a timeout counts as killed: the tests noticed; a mutant no selected test
reaches counts as a survivor).

A group whose code runs in a kernel subprocess (the pump) cannot use `mutmut run`: mutmut maps tests to
mutants by tracing its own process. For such a group mutmut only generates the mutants; this script then
runs the group's tests once per mutant with MUTANT_UNDER_TEST naming it and the mutated package first on
PYTHONPATH, which the kernel inherits, and records each outcome where mutmut keeps its results.
"""

from __future__ import annotations

import argparse
import fnmatch
import json
import os
import shutil
import signal
import subprocess
import sys
import tomllib
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SURVIVORS_FILE = ROOT / "scripts" / "mutation-survivors.txt"
TARGET = 0.90


@dataclass(frozen=True)
class Group:
    name: str
    modules: tuple[str, ...]
    tests: tuple[str, ...]
    #: The modules run in a kernel subprocess: every mutant gets all the tests (see `run_in_subprocesses`).
    subprocess: bool = False
    #: A pytest `-k` expression that keeps the tests of a subprocess group to the ones that reach its code.
    select: str = ""
    #: Environment for the group's test runs (e.g. a smaller bash differential run per mutant).
    env: tuple[tuple[str, str], ...] = ()


_P = "jupyter_agent/"
_T = "tests/unit/"

#: Module groups and the tests that are meant to catch their bugs. Order: cheapest first, the ones that are
#: rewritten most often last.
GROUPS: tuple[Group, ...] = (
    Group(
        "validation",
        (_P + "tools/validation.py",),
        (
            _T + "tools/test_tool_schema_and_validation.py",
            _T + "builtin_tools/mcp/test_mcp_schema_and_config.py",
            _T + "tools/test_dispatcher.py",
        ),
    ),
    Group(
        "replace",
        (_P + "builtin_tools/files/replace.py",),
        (
            _T + "builtin_tools/files/test_edit_tool.py",
            _T + "builtin_tools/files/test_file_tool_errors.py",
            _T + "builtin_tools/files/test_multiedit_tool.py",
        ),
    ),
    Group(
        "freshness",
        (_P + "tools/ledger.py", _P + "builtin_tools/files/access.py"),
        (
            _T + "builtin_tools/files/test_edit_tool.py",
            _T + "builtin_tools/files/test_write_tool.py",
            _T + "builtin_tools/files/test_multiedit_tool.py",
            _T + "builtin_tools/files/test_read_tool.py",
            _T + "builtin_tools/files/test_file_tool_errors.py",
            _T + "tools/test_read_ledger.py",
            _T + "builtin_tools/files/test_searches_leave_out_denied_files.py",
        ),
    ),
    Group(
        "html",
        (_P + "ui/html.py", _P + "ui/cards.py", _P + "ui/approval.py", _P + "ui/questions.py"),
        (
            _T + "ui/test_safe_html.py",
            _T + "ui/test_tool_card.py",
            _T + "ui/test_approval_card.py",
            _T + "ui/test_approval_text.py",
            _T + "ui/test_run_view.py",
            _T + "ui/test_checklist_and_subagent_cards.py",
            _T + "ui/test_offline_demo_and_code_blocks.py",
            _T + "builtin_tools/files/test_unified_diff.py",
        ),
    ),
    Group(
        "undo",
        (_P + "undo/run.py", _P + "undo/files.py", _P + "undo/cells.py", _P + "base/journal.py"),
        (
            _T + "undo/test_undo_files.py",
            _T + "notebook/test_notebook_edit_tool.py",
            _T + "builtin_tools/files/test_write_tool.py",
            _T + "builtin_tools/files/test_edit_tool.py",
            _T + "builtin_tools/files/test_multiedit_tool.py",
        ),
    ),
    Group(
        "notebook",
        (_P + "notebook/apply.py", _P + "notebook/file_backend.py"),
        (
            _T + "notebook/test_op_vectors.py",
            _T + "notebook/test_file_notebook.py",
            _T + "notebook/test_notebook_edit_tool.py",
            _T + "notebook/test_real_notebook_files.py",
            _T + "notebook/test_open_notebooks_are_never_written.py",
        ),
    ),
    Group(
        "sandbox",
        (_P + "base/sandbox.py",),
        (
            _T + "tools/test_sandbox_properties.py",
            _T + "tools/test_sandbox_paths.py",
            _T + "base/test_sandbox_nul_paths.py",
            _T + "tools/test_atomic_write_kill.py",
            _T + "tools/test_atomic_write_race.py",
            _T + "tools/test_atomic_write_files.py",
            _T + "tools/test_text_sniffing_and_output_caps.py",
            _T + "builtin_tools/files/test_file_tool_errors.py",
            _T + "builtin_tools/files/test_write_tool.py",
            _T + "builtin_tools/test_bash_tool.py",
        ),
    ),
    Group(
        "dispatch",
        (_P + "tools/dispatch.py",),
        (
            _T + "tools/test_dispatcher.py",
            _T + "tools/test_what_the_dispatcher_reports.py",
            # not tools/test_dispatch_never_raises.py: its hypothesis search runs minutes per mutant
            _T + "tools/test_rules_through_dispatcher.py",
            _T + "permissions/test_permissions.py",
            _T + "tools/test_tool_schema_and_validation.py",
            _T + "tools/test_kernel_hooks_examples.py",
            _T + "ui/test_approval_card.py",
        ),
    ),
    Group(
        "permissions",
        (_P + "permissions/policy.py", _P + "permissions/rule_glob.py", _P + "permissions/rule_names.py"),
        (
            _T + "tools/test_permissions*.py",
            _T + "tools/test_rule*.py",
            _T + "tools/test_dispatcher.py",
            _T + "tools/test_absolute_rules_and_scopes.py",
        ),
    ),
    Group(
        "commands",
        (
            _P + "permissions/commands.py",
            _P + "permissions/shell_syntax.py",
            _P + "permissions/shell_words.py",
            _P + "permissions/shell_wrappers.py",
            _P + "permissions/command_patterns.py",
        ),
        (
            _T + "permissions/test_shell_rules_against_bash.py",
            _T + "permissions/test_shell_parsing.py",
            _T + "permissions/test_rule_properties.py",
            _T + "permissions/test_permissions.py",
            _T + "tools/test_rules_through_dispatcher.py",
        ),
        # every mutant runs the bash differential test: a smaller sample keeps a mutant to seconds
        env=(("SHELL_ORACLE_CASES", "60"),),
    ),
    Group(
        "masking",
        (_P + "masking.py", _P + "secret_scan.py"),
        (
            _T + "test_secret_masking.py",
            _T + "test_masking_units.py",
            _T + "agent/test_agent_masks_the_client_key.py",
            _T + "agent/test_project_memory.py",
            _T + "builtin_tools/workflow/test_question_and_plan_tools.py",
            _T + "builtin_tools/kernel/test_kernel_variables.py",
            _T + "tools/test_text_sniffing_and_output_caps.py",
        ),
    ),
    Group(
        "bubblewrap",
        (
            _P + "permissions/bubblewrap.py",
            _P + "permissions/sandbox_guard.py",
            _P + "permissions/startup_files.py",
            _P + "permissions/protected.py",
        ),
        (
            # not tools/test_bash_sandbox.py: under mutmut's runner its sandboxed commands fail before the
            # code under test matters (its clean run fails), so it cannot score mutants
            _T + "permissions/test_sandbox_guards_protected_paths.py",
            _T + "permissions/test_bubblewrap_command_line.py",
            _T + "builtin_tools/test_bash_tool.py",
            _T + "permissions/test_permissions.py",
            _T + "permissions/test_protected_paths.py",
        ),
    ),
    Group(
        "web",
        (
            _P + "builtin_tools/web/http.py",
            _P + "builtin_tools/web/addresses.py",
            _P + "base/hosts.py",
        ),
        (
            _T + "builtin_tools/web/test_webfetch_*.py",
            _T + "permissions/test_permissions.py",
            _T + "permissions/test_protected_paths.py",
        ),
    ),
    Group(
        "inspect",
        (_P + "builtin_tools/kernel/inspect.py", _P + "builtin_tools/kernel/guards.py"),
        (_T + "builtin_tools/kernel/test_kernel_variables.py", _T + "watch/test_kernel_watch_and_debug.py"),
    ),
    Group(
        "glob",
        (_P + "builtin_tools/files/globmatch.py", _P + "base/linear_regex.py"),
        (
            _T + "builtin_tools/files/test_glob_tool.py",
            _T + "builtin_tools/files/test_grep_tool.py",
            # not agent/test_background_jobs.py: its background job's output does not arrive under mutmut's
            # runner (its clean run fails there); BashOutput's RE2 filter is covered through linear_regex
            _T + "builtin_tools/files/test_bounded_patterns.py",
        ),
    ),
    Group(
        "pump",
        (_P + "ui/pump.py",),
        (
            _T + "ui/test_pump*.py",
            "tests/kernel/test_shell_pump.py",
            "tests/kernel/test_run_all_order.py",
            "tests/kernel/test_live_notebook_bridge.py",
        ),
        subprocess=True,
        # Run All's repeats are there to catch a rare reorder; one of each mode tells a mutant apart
        select="not dozen or approval-0 or acceptEdits-0",
    ),
)


# -- the survivors file -----------------------------------------------------------------------------------


def survivor_key(module: str, mutant: str, diff: str) -> str:
    """What identifies a mutant across runs: its module, function and changed lines (not mutmut's number)."""
    function = mutant.rsplit("__mutmut_", 1)[0].rsplit(".", 1)[-1].removeprefix("x_").replace("ǁ", ".")
    changed = [
        " ".join(line[1:].split())
        for line in diff.splitlines()
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]
    return f"{module}::{function.strip('.')}: " + " => ".join(changed)


def load_arguments(path: Path) -> dict[str, str]:
    """`scripts/mutation-survivors.txt`: a key line, then indented lines arguing for it; `#` comments.

    A key with `*` is a pattern (fnmatch) for a family of mutants that share one argument (style strings)."""
    arguments: dict[str, str] = {}
    key: str | None = None
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        if line.startswith((" ", "\t")):
            if key is None:
                raise SystemExit(f"{path}: an argument line before any key: {line!r}")
            arguments[key] = (arguments[key] + " " + line.strip()).strip()
        else:
            key = line.strip()
            arguments[key] = ""
    return arguments


# -- one group ---------------------------------------------------------------------------------------------


def expand(patterns: tuple[str, ...]) -> list[str]:
    found: list[str] = []
    for pattern in patterns:
        found += sorted(str(p.relative_to(ROOT)) for p in ROOT.glob(pattern))
    return list(dict.fromkeys(found))


def prepare(group: Group, workdir: Path, tests: list[str]) -> None:
    if workdir.exists():
        shutil.rmtree(workdir)
    workdir.mkdir(parents=True)
    for name in ("jupyter_agent", "tests", "docs"):  # some tests read the docs (hooks.md's examples)
        (workdir / name).symlink_to(ROOT / name)
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    pytest_options = project["tool"]["pytest"]["ini_options"]
    lines = ["[tool.pytest.ini_options]"]
    lines += [f"{key} = {json.dumps(value)}" for key, value in pytest_options.items() if key != "addopts"]
    lines += [
        'addopts = "-p no:cacheprovider --timeout=120"',
        "",
        "[tool.mutmut]",
        'source_paths = ["jupyter_agent"]',
        'also_copy = ["docs"]',
        f"only_mutate = {json.dumps(list(group.modules))}",
        f"pytest_add_cli_args_test_selection = {json.dumps(tests)}",
        "use_git_change_detection = false",
        "timeout_multiplier = 5.0",
        "",
    ]
    (workdir / "pyproject.toml").write_text("\n".join(lines), encoding="utf-8")


#: A mutant that loops appending to a list eats memory fast; capped, it dies with MemoryError (killed).
MEMORY_LIMIT = 6 * 1024**3


def _limit_memory() -> None:
    import resource

    resource.setrlimit(resource.RLIMIT_AS, (MEMORY_LIMIT, MEMORY_LIMIT))


def _clean_env() -> dict[str, str]:
    return {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "CI", "MUTANT_UNDER_TEST")}


def run_mutmut(workdir: Path, log: Path, group_env: tuple[tuple[str, str], ...] = ()) -> int:
    env = _clean_env() | dict(group_env)
    mutmut = Path(sys.executable).with_name("mutmut")
    with log.open("wb") as out:
        done = subprocess.run(
            ["nice", "-n", "10", str(mutmut), "run", "--max-children", os.environ.get("MUTATION_JOBS", "1")],
            cwd=workdir,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            check=False,
            preexec_fn=_limit_memory,
        )
    return done.returncode


READ_RESULTS = r"""
import json
from mutmut.__main__ import collect_source_file_mutation_data, get_diff_for_mutant
from mutmut.stats import status_by_exit_code
mutants, _ = collect_source_file_mutation_data(mutant_names=[])
out = []
for data, name, code in mutants:
    status = status_by_exit_code[code]
    diff = "" if status in ("killed", "timeout") else get_diff_for_mutant(name, path=data.path)
    out.append({"name": name, "path": str(data.path), "status": status, "diff": diff})
print(json.dumps(out))
"""


def in_mutmut(workdir: Path, code: str, stdin: str = "") -> str:
    """Run `code` with mutmut's functions in `workdir` (they read its config and write under `mutants/`
    relative to the working directory); the last line it printed."""
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=workdir,
        env=_clean_env(),
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"mutmut failed in {workdir} (exit {done.returncode}):\n{done.stderr[-3000:]}")
    return (done.stdout.strip().splitlines() or [""])[-1]


def read_results(workdir: Path) -> list[dict[str, str]]:
    return json.loads(in_mutmut(workdir, READ_RESULTS))


# -- a group whose code runs in a kernel subprocess --------------------------------------------------------

#: What `mutmut run` does before it traces the tests: copy the sources under `mutants/` and mutate the
#: group's modules. Prints the names of the mutants.
GENERATE = r"""
import json, os
from mutmut.__main__ import collect_source_file_mutation_data, create_mutants
from mutmut.mutation.trampoline import set_mutant_under_test
from mutmut.utils.file_utils import copy_also_copy_files, copy_src_dir, setup_source_paths
set_mutant_under_test("mutant_generation")
os.makedirs("mutants", exist_ok=True)
copy_src_dir()
copy_also_copy_files()
setup_source_paths()
create_mutants(1)
mutants, _ = collect_source_file_mutation_data(mutant_names=[])
print(json.dumps([name for _, name, _ in mutants]))
"""

#: Stores the exit code of each mutant's tests (a JSON object on stdin) where `mutmut run` would.
RECORD = r"""
import json, sys
from mutmut.__main__ import collect_source_file_mutation_data
codes = json.load(sys.stdin)
_, by_path = collect_source_file_mutation_data(mutant_names=[])
for data in by_path.values():
    data.exit_code_by_key.update({key: codes[key] for key in data.exit_code_by_key if key in codes})
    data.save()
"""

#: pytest's exit codes that are an outcome (passed: survived; failed or internal error: killed), and the
#: one mutmut records for a timeout. Anything else (usage error, nothing collected) is a broken setup.
OUTCOMES = (0, 1, 3)
TIMEOUT = 36
#: Per mutant. pytest-timeout ends a stuck test well before; this catches a hang outside a test.
SUBPROCESS_TIMEOUT = 900


def run_tests_as(workdir: Path, group: Group, tests: list[str], mutant: str) -> tuple[int, str]:
    """The group's tests with `mutant` active, in this process and in every kernel it starts."""
    mutants = workdir / "mutants"
    env = _clean_env() | {"PYTHONPATH": str(mutants), "MUTANT_UNDER_TEST": mutant}
    # -x: the first failure decides. A test stuck past a minute (the unmutated ones take seconds) is killed.
    command = ["nice", "-n", "10", sys.executable, "-m", "pytest", "-x", "-q", "--timeout=60", *tests]
    if group.select:
        command += ["-k", group.select]
    process = subprocess.Popen(
        command,
        cwd=mutants,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,  # killed as a group on timeout; kernels exit with their parent
        preexec_fn=_limit_memory,
    )
    try:
        out, _ = process.communicate(timeout=SUBPROCESS_TIMEOUT)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        out, _ = process.communicate()
        return TIMEOUT, out.decode(errors="replace")
    return process.returncode, out.decode(errors="replace")


def run_in_subprocesses(group: Group, workdir: Path, tests: list[str]) -> None:
    """Generate the mutants with mutmut, run the tests once per mutant, record the outcomes for mutmut.

    Checked first, or every mutant would look killed (or survive): the tests pass with no mutant active,
    and fail when every mutated function raises (mutmut's own check), which shows the kernel really
    imports the mutated package."""
    names: list[str] = json.loads(in_mutmut(workdir, GENERATE))
    code, out = run_tests_as(workdir, group, tests, "")
    if code != 0:
        raise SystemExit(f"{group.name}: the tests fail with no mutant active (exit {code}):\n{out[-3000:]}")
    code, out = run_tests_as(workdir, group, tests, "fail")
    if code == 0:
        raise SystemExit(
            f"{group.name}: the tests pass with every mutated function raising; is the kernel "
            f"importing the mutated package from {workdir / 'mutants'}?\n{out[-3000:]}"
        )
    jobs = int(os.environ.get("MUTATION_JOBS", "1"))
    print(f"   {len(names)} mutants, each against all the tests above ({jobs} at a time)", flush=True)
    codes: dict[str, int] = {}
    with (workdir / "mutmut.log").open("w", encoding="utf-8") as log, ThreadPoolExecutor(jobs) as pool:
        runs = pool.map(partial(run_tests_as, workdir, group, tests), names)
        for name, (code, out) in zip(names, runs, strict=True):
            log.write(f"== {name}: exit {code}\n{out}\n")
            log.flush()
            if code not in (*OUTCOMES, TIMEOUT):
                raise SystemExit(
                    f"{group.name}: pytest exit {code} for {name}, not an outcome:\n{out[-3000:]}"
                )
            codes[name] = code
    in_mutmut(workdir, RECORD, json.dumps(codes))


@dataclass
class Outcome:
    group: str
    total: int
    killed: int
    unexplained: int


def run_group(
    group: Group, base: Path, arguments: dict[str, str], seen: set[str], *, report_only: bool = False
) -> Outcome:
    tests = expand(group.tests)
    modules = [m for m in group.modules if (ROOT / m).exists()]
    print(f"\n== {group.name}: {', '.join(modules)}", flush=True)
    print(f"   tests: {' '.join(tests) or '(none)'}", flush=True)
    if not tests:
        print("   no test files: skipped", flush=True)
        return Outcome(group.name, 0, 0, 0)
    workdir = base / group.name
    if not report_only:
        prepare(replace(group, modules=tuple(modules)), workdir, tests)
        if group.subprocess:
            run_in_subprocesses(group, workdir, tests)
        elif code := run_mutmut(workdir, workdir / "mutmut.log", group.env):
            tail = (workdir / "mutmut.log").read_text(errors="replace")[-3000:]
            raise SystemExit(f"mutmut failed for {group.name} (exit {code}); the end of its log:\n{tail}")
    results = read_results(workdir)
    killed = sum(1 for r in results if r["status"] in ("killed", "timeout"))
    total = len(results)
    unexplained = 0
    for result in results:
        if result["status"] in ("killed", "timeout"):
            continue
        module = result["path"]
        key = survivor_key(module, result["name"], result["diff"])
        seen.add(key)
        argument = arguments.get(key) or next(
            (
                text
                for pattern, text in arguments.items()
                if "*" in pattern and fnmatch.fnmatchcase(key, pattern)
            ),
            None,
        )
        if argument is None:
            unexplained += 1
            print(f"   UNEXPLAINED ({result['status']}) {key}", flush=True)
            body = [line for line in result["diff"].splitlines() if not line.startswith(("+++", "---"))]
            print("\n".join("      " + line for line in body), flush=True)
        else:
            print(f"   accepted ({result['status']}) {key}\n      -> {argument}", flush=True)
    score = killed / total if total else 1.0
    print(f"   score {group.name}: {killed}/{total} killed = {score:.1%}", flush=True)
    return Outcome(group.name, total, killed, unexplained)


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("groups", nargs="*", help="groups to run (default: all)")
    parser.add_argument("--list", action="store_true", help="list the groups, their modules and tests")
    parser.add_argument(
        "--report-only", action="store_true", help="print the results of the last run again, without running"
    )
    parser.add_argument(
        "--workdir", default=os.environ.get("MUTATION_WORKDIR", "/tmp/jupyter_agent-mutation")
    )
    args = parser.parse_args()
    by_name = {g.name: g for g in GROUPS}
    if args.list:
        for group in GROUPS:
            print(f"{group.name}: {' '.join(group.modules)}\n    tests: {' '.join(expand(group.tests))}")
        return 0
    unknown = [name for name in args.groups if name not in by_name]
    if unknown:
        raise SystemExit(f"unknown group(s) {', '.join(unknown)}; choose from {', '.join(by_name)}")
    chosen = [by_name[name] for name in args.groups] if args.groups else list(GROUPS)
    arguments = load_arguments(SURVIVORS_FILE)
    seen: set[str] = set()
    outcomes = [
        run_group(group, Path(args.workdir), arguments, seen, report_only=args.report_only)
        for group in chosen
    ]
    print("\n== scores")
    for o in outcomes:
        score = f"{o.killed / o.total:.1%}" if o.total else "n/a"
        print(
            f"   {o.group:<12} {o.killed:>4}/{o.total:<4} {score:>6}   unexplained survivors: {o.unexplained}"
        )
    total = sum(o.total for o in outcomes)
    killed = sum(o.killed for o in outcomes)
    overall = killed / total if total else 1.0
    unexplained = sum(o.unexplained for o in outcomes)
    print(f"   {'overall':<12} {killed:>4}/{total:<4} {overall:>6.1%}   unexplained survivors: {unexplained}")
    if not args.groups:
        stale = sorted(
            k
            for k in arguments
            if k not in seen
            and not any(fnmatch.fnmatchcase(s, k) for s in seen)
            and any(k.startswith(m) for g in chosen for m in g.modules)
        )
        for key in stale:
            print(f"   note: no longer survives (remove from {SURVIVORS_FILE.name}): {key}")
    return 0 if overall >= TARGET and unexplained == 0 else 1


if __name__ == "__main__":
    sys.exit(main())
