"""The moments of a session Claude Code's hooks name, in runs through the real SDK and the scripted server, with
real hook commands wired as the host wires them (`RunSetup.hooks`): what their outputs do."""

from __future__ import annotations

import json
import os
import shlex
import sys
import time
from pathlib import Path
from typing import Any

from agent_testkit import Harness, HarnessFactory, texts, tool_results

from jupyter_agent.agent.events import Notice
from jupyter_agent.agent.setup import RunSetup
from jupyter_agent.builtin_tools.files import file_tools
from jupyter_agent.builtin_tools.workflow import workflow_tools
from jupyter_agent.testing import Text, ToolUse, Turn
from jupyter_agent.tools.command_hooks import CommandHook, HookEvent

PARENT_TOOLS = [*file_tools(), *workflow_tools()]


def python_hook(code: str) -> str:
    """A hook command: `code` runs with the event as `e` and prints what it returns as JSON (None: nothing)."""
    program = f"import json, sys\ne = json.load(sys.stdin)\nout = {code}\nif out is not None: print(json.dumps(out))"
    return f"{shlex.quote(sys.executable)} -c {shlex.quote(program)}"


def wire(h: Harness, *hooks: tuple[HookEvent, str, str]) -> None:
    """The hooks as a project's settings give them, applied to the session as the host applies a run's setup."""
    root = Path(os.path.realpath(h.session.ctx.sandbox.cwd))
    made = tuple(
        CommandHook(event=event, matcher=matcher, command=command, cwd=root, timeout=20)
        for event, matcher, command in hooks
    )
    setup = RunSetup(config=h.session.config, sandbox=h.session.ctx.sandbox, command_hooks=made)
    h.session.apply(setup)


def notices(h: Harness) -> list[str]:
    return [n.message for n in h.of(Notice)]


def context_hook(event: str) -> str:
    return python_hook(
        f'{{"hookSpecificOutput": {{"hookEventName": "{event}", "additionalContext": "{event} " + e["source"]}}}}'
    )


def test_session_start_adds_its_context_to_a_conversations_first_request_with_its_source(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    h = harness(
        [Turn(blocks=[Text("one")]), Turn(blocks=[Text("two")]), Turn(blocks=[Text("three")])],
        session_options={"project": tmp_path, "sessions_root": tmp_path / "sessions"},
    )
    wire(h, ("SessionStart", "", context_hook("SessionStart")))
    h.run("first")
    h.run("second")  # the same conversation: no SessionStart
    saved = h.session.load_saved(h.session.recorder.id if h.session.recorder else None)
    h.session.resume(saved)
    h.run("third")
    first, second, third = h.server.requests
    assert texts(first["messages"][0])[-1] == "SessionStart startup"
    assert not any("SessionStart" in t for m in second["messages"][2:] for t in texts(m))
    assert texts(third["messages"][-1])[-1] == "SessionStart resume"


def test_a_session_start_matcher_reads_the_source(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("one")]), Turn(blocks=[Text("two")])])
    wire(h, ("SessionStart", "clear|compact", context_hook("SessionStart")))
    h.run("first")
    h.session.reset()
    h.run("again")
    first, again = h.server.requests
    assert not any("SessionStart" in t for t in texts(first["messages"][0]))
    assert texts(again["messages"][0])[-1] == "SessionStart clear"


def test_continue_false_ends_the_run_with_its_stop_reason_and_the_next_run_goes_on(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    stop = python_hook('{"continue": False, "stopReason": "the build is red; fix CI first"}')
    h = harness(
        [
            Turn(blocks=[ToolUse(name="Read", input={"file_path": "notes.txt"})]),
            Turn(blocks=[Text("never asked")]),
        ],
        tools=file_tools(),
    )
    wire(h, ("PreToolUse", "Read", stop))
    finished = h.run("read the notes")
    assert finished.reason == "blocked" and len(h.server.requests) == 1
    assert "a hook stopped the agent: the build is red; fix CI first" in notices(h)
    wire(h)  # the hook removed: the next run is not stopped by the old `continue: false`
    assert h.run("go on").reason == "end_turn"


def test_continue_false_on_a_prompt_stops_the_request_before_it_is_sent(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("hi")])])
    wire(h, ("UserPromptSubmit", "", python_hook('{"continue": False, "stopReason": "out of office"}')))
    finished = h.run("hello")
    assert finished.reason == "blocked" and h.server.requests == []
    assert any("out of office" in line for line in notices(h))


def test_a_system_message_is_shown_to_the_user_not_the_model(harness: HarnessFactory) -> None:
    h = harness([Turn(blocks=[Text("hi")])])
    wire(h, ("UserPromptSubmit", "", python_hook('{"systemMessage": "remember the demo at 3"}')))
    h.run("hello")
    assert any(line.endswith(": remember the demo at 3") for line in notices(h))
    assert "remember the demo" not in json.dumps(h.server.requests)


def test_stop_gets_the_last_assistant_message_and_a_block_sends_the_model_back(
    harness: HarnessFactory,
) -> None:
    h = harness([Turn(blocks=[Text("Done.")]), Turn(blocks=[Text("Tests pass.")])])
    back = python_hook(
        'None if e["stop_hook_active"] else {"decision": "block", "reason": "after " + e["last_assistant_message"]}'
    )
    wire(h, ("Stop", "", back))
    assert h.run("fix it").turns == 2
    second = h.server.requests[1]
    assert texts(second["messages"][-1]) == ["[A Stop hook asks you to continue: after Done.]"]


def test_subagent_start_adds_to_its_task_and_subagent_stop_can_send_it_back_once(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    def is_sub(body: dict[str, Any]) -> bool:
        return "You are a sub-agent" in body["system"][0]["text"]

    def script(body: dict[str, Any], index: int) -> Turn:
        if is_sub(body):
            return Turn(blocks=[Text(f"report {len(body['messages'])}")])
        if index == 0:
            task = {"description": "Look", "prompt": "Find the loader."}
            return Turn(blocks=[ToolUse(name="Task", input=task)])
        return Turn(blocks=[Text("Found it.")])

    h = harness(script, tools=PARENT_TOOLS)
    start = python_hook(
        '{"hookSpecificOutput": {"hookEventName": "SubagentStart", "additionalContext": "Use ripgrep, "'
        ' + e["agent_type"] + " " + e["agent_id"]}}'
    )
    again = python_hook('None if e["stop_hook_active"] else {"decision": "block", "reason": "cite the line"}')
    wire(h, ("SubagentStart", "Explore", start), ("SubagentStop", "", again))
    assert h.run("where is the loader?").reason == "end_turn"
    subs = [b for b in h.server.requests if is_sub(b)]
    assert len(subs) == 2  # sent back once
    assert "Find the loader.\n\nUse ripgrep, Explore agent_1" in texts(subs[0]["messages"][0])[-1]
    assert texts(subs[1]["messages"][-1]) == ["[A SubagentStop hook asks you to continue: cite the line]"]
    (result,) = tool_results(h.server.requests[-1])
    assert "report 3" in json.dumps(result)  # the report after going back


def test_pre_compact_exit_2_keeps_the_conversation_and_post_compact_sees_the_summary(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    h = harness([Turn(blocks=[Text("one")]), Turn(blocks=[Text("two")]), Turn(blocks=[Text("The summary.")])])
    h.run("first")
    h.run("second")
    wire(h, ("PreCompact", "manual", "echo 'not during the release' >&2; exit 2"))
    assert h.worker.submit(h.session.compact(emit=h.emit)).result(30) is False
    assert "a PreCompact hook stopped the compaction: not during the release" in notices(h)
    assert len(h.server.requests) == 2  # no summary was asked for
    log = tmp_path / "post.json"
    wire(h, ("PostCompact", "", f"cat > {shlex.quote(str(log))}"))
    assert h.worker.submit(h.session.compact(emit=h.emit)).result(30) is True
    event = json.loads(log.read_text())
    assert event["trigger"] == "manual" and event["compact_summary"].startswith("The summary.")


def test_a_prompt_hook_asks_the_sessions_model_and_its_no_blocks_the_call(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    def asked(body: dict[str, Any]) -> bool:
        return texts(body["messages"][0])[0].startswith("You are a hook")

    def script(body: dict[str, Any], index: int) -> Turn:
        if asked(body):
            event = texts(body["messages"][0])[0]
            verdict = (
                {"ok": False, "reason": "data.csv is generated"} if "data.csv" in event else {"ok": True}
            )
            return Turn(blocks=[Text(json.dumps(verdict))])
        if index == 0:
            return Turn(
                blocks=[
                    ToolUse(name="Write", input={"file_path": "data.csv", "content": "x\n"}, id="toolu_csv"),
                    ToolUse(name="Write", input={"file_path": "notes.md", "content": "y\n"}, id="toolu_md"),
                ]
            )
        return Turn(blocks=[Text("Done.")])

    h = harness(script, tools=file_tools(), mode="acceptEdits")
    root = Path(os.path.realpath(tmp_path))
    hook = CommandHook(
        event="PreToolUse",
        matcher="Write",
        command="",
        kind="prompt",
        prompt="Refuse writes to generated files. The call: $ARGUMENTS",
        cwd=root,
        timeout=20,
    )
    h.session.apply(
        RunSetup(
            config=h.session.config, sandbox=h.session.ctx.sandbox, mode="acceptEdits", command_hooks=(hook,)
        )
    )
    assert h.run("update the files").reason == "end_turn"
    questions = [b for b in h.server.requests if asked(b)]
    assert len(questions) == 2 and all(q["model"] == h.session.config.model for q in questions)
    assert '"tool_name": "Write"' in texts(questions[0]["messages"][0])[0]  # $ARGUMENTS: the event's JSON
    results = {b["tool_use_id"]: b for b in tool_results(h.server.requests[-1])}
    blocked = json.dumps(results["toolu_csv"])
    assert "was blocked by the PreToolUse prompt hook" in blocked and "data.csv is generated" in blocked
    assert not (root / "data.csv").exists() and (root / "notes.md").read_text() == "y\n"


def test_an_async_rewake_hook_that_exits_2_wakes_the_agent_at_the_next_run_when_this_one_has_ended(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    """`asyncRewake` (as Anthropic's security-guidance plugin uses it after `git commit`): the hook runs in the
    background; it finishes after the run ended (it waits for `go`), so the next run's request carries it."""
    root = Path(os.path.realpath(tmp_path))
    (root / "notes.txt").write_text("hello\n")
    h = harness(
        [
            Turn(blocks=[ToolUse(name="Read", input={"file_path": "notes.txt"})]),
            Turn(blocks=[Text("read")]),
            Turn(blocks=[Text("I will fix the finding")]),
        ],
        tools=file_tools(),
        session_options={"project": root},
    )
    waits = "while [ ! -f go ]; do sleep 0.05; done; echo 'review: a secret in notes.txt' >&2; exit 2"
    hook = CommandHook(
        event="PostToolUse", matcher="Read", command=waits, cwd=root, timeout=20, background=True, rewake=True
    )
    h.session.apply(RunSetup(config=h.session.config, sandbox=h.session.ctx.sandbox, command_hooks=(hook,)))
    assert h.run("read the notes").turns == 2
    assert not any("background hook" in t for r in h.server.requests for m in r["messages"] for t in texts(m))
    (root / "go").write_text("")
    deadline = time.monotonic() + 20
    while not h.session.hooks.woken:
        assert time.monotonic() < deadline, "the background hook never finished"
        time.sleep(0.05)
    # the host applies the run's setup again before each run (the hooks are rebuilt): what woke the agent stays
    h.session.apply(RunSetup(config=h.session.config, sandbox=h.session.ctx.sandbox, command_hooks=(hook,)))
    h.run("go on")
    said = texts(h.server.requests[2]["messages"][-1])
    assert said[-1] == f"[A background hook reports: {hook.describe()}: review: a secret in notes.txt]", said
    assert h.session.hooks.woken == []


def test_what_a_background_hook_woke_the_agent_with_during_a_run_sends_the_model_on_when_its_turn_ends(
    harness: HarnessFactory, tmp_path: Path
) -> None:
    (tmp_path / "notes.txt").write_text("hello\n")
    h = harness(
        [
            Turn(blocks=[ToolUse(name="Read", input={"file_path": "notes.txt"})]),
            Turn(blocks=[Text("read")]),
            Turn(blocks=[Text("looked at the finding")]),
        ],
        tools=file_tools(),
    )
    hooks = h.session.hooks
    hooks.post_tool_use.append(lambda call, result: hooks.woken.append("review: fix line 3") and None)
    assert h.run("read the notes").turns == 3
    assert texts(h.server.requests[2]["messages"][-1]) == ["[A background hook reports: review: fix line 3]"]
    assert "a background hook woke the agent: it goes on" in notices(h)
    assert hooks.woken == []
