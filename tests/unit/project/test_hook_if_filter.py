"""A hook's `if` (a permission rule, as in the hooks reference and Anthropic's security-guidance plugin:
`"if": "Bash(git commit:*)"`): the hook runs only for the calls the rule matches, a compound command included;
an `if` that cannot be read leaves the hook running on every call, with one line saying so (issue #44)."""

from __future__ import annotations

import asyncio
import sys

from project_tree import Tree

from jupyter_agent.permissions.policy import Deny
from jupyter_agent.tools.command_hooks import CommandHooks, HookSession
from jupyter_agent.tools.hooks import HookCall

BLOCK = f"{sys.executable} -c \"import sys; print('no commits now', file=sys.stderr); sys.exit(2)\""


def hooks_with_if(tree: Tree, condition: object) -> CommandHooks:
    entry = {"type": "command", "command": BLOCK, "if": condition}
    tree.settings(
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [entry]}]}}, name="settings.local.json"
    )
    tree.claude().trust()
    claude = tree.claude()
    session = HookSession(
        session_id="s", transcript_path="", cwd=str(tree.project), permission_mode="default"
    )
    return CommandHooks(claude.settings.hooks, session=lambda: session, report=lambda _line: None)


def blocked(hooks: CommandHooks, command: str) -> bool:
    call = HookCall(
        tool="Bash", input={"command": command}, subject=command, tool_use_id="t", rule_kind="command"
    )
    return isinstance(asyncio.run(hooks.pre_tool_use(call)), Deny)


def test_a_hook_with_an_if_runs_only_for_the_calls_its_rule_matches(tree: Tree) -> None:
    hooks = hooks_with_if(tree, "Bash(git commit:*)")
    assert blocked(hooks, "git commit -m 'wip'")
    assert blocked(hooks, "git add . && git commit -m 'wip'")
    assert not blocked(hooks, "ls -la")
    assert not blocked(hooks, "git status")


def test_an_if_that_cannot_be_read_keeps_the_hook_on_every_call_and_says_so(tree: Tree) -> None:
    hooks = hooks_with_if(tree, ["Bash(git commit:*)"])
    assert blocked(hooks, "ls -la")
    warnings = tree.claude().take_warnings()
    assert any("hooks.PreToolUse[0].hooks[0].if: expected a permission rule, got list" in w for w in warnings)


def test_an_async_rewake_hook_of_the_security_guidance_plugins_shape_runs_in_the_background_and_can_wake(
    tree: Tree,
) -> None:
    entry = {"type": "command", "command": "review.sh", "if": "Bash(git commit:*)", "asyncRewake": True}
    tree.user_settings({"hooks": {"PostToolUse": [{"hooks": [entry]}]}})
    claude = tree.claude()
    (hook,) = claude.settings.hooks
    assert hook.background and hook.rewake and str(hook.when) == "Bash(git commit:*)"
    assert claude.take_warnings() == []
