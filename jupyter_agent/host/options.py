"""The options of one `%%agent` run: declared once as flags, parsed into one frozen value.

`RUN_FLAGS` is the single declaration: the magic's argument parser, its help text and `RunOptions` are built
from it. Adding a flag is a row here and a field on `RunOptions` (then read the field where it takes effect,
e.g. `host.configure.agent_config`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..agent.models import EFFORTS, Effort
from ..agent.thinking import ThinkingSetting, parse_thinking
from ..permissions.modes import MODES, Mode
from ..permissions.policy import Rule


@dataclass(frozen=True, kw_only=True)
class RunOptions:
    """Per-run overrides of the settings; the defaults leave every setting as it is."""

    new: bool = False
    model: str | None = None
    mode: Mode | None = None
    max_turns: int | None = None
    allow: tuple[str, ...] = ()
    deny: tuple[str, ...] = ()
    quiet: bool = False
    #: This run's cost cap in USD (over the `budget_usd` setting).
    max_cost: float | None = None
    #: This run's thinking (over the `thinking` setting); "off" turns thinking off for this run (or as far as
    #: the model lets it).
    think: ThinkingSetting = None
    #: This run's effort (over the `effort` setting).
    effort: Effort | None = None
    #: Not flags: what `%agent /command` sets for its run — the tools it may use (None: any) and who said so.
    allowed_tools: tuple[str, ...] | None = None
    scope_owner: str = ""


NO_OPTIONS = RunOptions()


@dataclass(frozen=True, kw_only=True)
class RunFlag:
    """One `%%agent --flag`: how argparse reads it and what `%agent help` says about it."""

    flag: str
    help: str
    #: Shown after the flag in the help text (`--model MODEL`); empty for a switch.
    metavar: str = ""
    #: argparse keywords besides help/metavar (`action`, `type`, `choices`).
    parse: dict[str, Any] = field(default_factory=dict[str, Any])
    #: Turns the parsed value into the `RunOptions` field's value (e.g. splitting rule lists).
    convert: Callable[[Any], Any] | None = None

    @property
    def dest(self) -> str:
        return self.flag.removeprefix("--").replace("-", "_")

    def argparse_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"help": self.help, **self.parse}
        if self.metavar:
            kwargs["metavar"] = self.metavar
        return kwargs


def split_rules(values: Sequence[str] | None) -> tuple[str, ...]:
    """`--allow "Read,Edit(src/**)" --allow Bash` → ('Read', 'Edit(src/**)', 'Bash'); commas inside () stay.

    Raises ValueError naming the rule that does not parse and how to write one.
    """
    rules: list[str] = []
    for value in values or []:
        depth, current = 0, ""
        for char in value:
            if char == "(":
                depth += 1
            elif char == ")":
                depth -= 1
            if char == "," and depth == 0:
                rules.append(current.strip())
                current = ""
            else:
                current += char
        rules.append(current.strip())
    rules = [r for r in rules if r]
    for rule in rules:
        Rule.parse(rule)
    return tuple(rules)


def _at_least_one(value: int | None) -> int | None:
    if value is not None and value < 1:
        raise ValueError("--max-turns must be at least 1")
    return value


def _positive_cost(value: float) -> float:
    if value <= 0:
        raise ValueError(f"--max-cost must be a positive amount of USD, e.g. --max-cost 0.50; got {value}")
    return value


def _think(value: str) -> ThinkingSetting:
    try:
        return parse_thinking(value) or "off"
    except ValueError as exc:
        raise ValueError(f"--think: {exc}") from None


RUN_FLAGS: tuple[RunFlag, ...] = (
    RunFlag(flag="--new", help="start a fresh conversation", parse={"action": "store_true"}),
    RunFlag(flag="--model", metavar="MODEL", help="model for this run"),
    RunFlag(
        flag="--mode",
        metavar="MODE",
        help=f"{' | '.join(MODES)} (this run)",
        parse={"choices": list(MODES)},
    ),
    RunFlag(
        flag="--max-turns",
        metavar="N",
        help="stop after N model turns",
        parse={"type": int},
        convert=_at_least_one,
    ),
    RunFlag(
        flag="--allow",
        metavar="RULES",
        help='allow rules for this run, e.g. --allow "Edit(src/**),Bash(git status*)"',
        parse={"action": "append"},
        convert=split_rules,
    ),
    RunFlag(
        flag="--deny",
        metavar="RULES",
        help="deny rules for this run (bare tool names are also hidden from the model)",
        parse={"action": "append"},
        convert=split_rules,
    ),
    RunFlag(
        flag="--max-cost",
        metavar="USD",
        help="stop this run once it has cost this many USD",
        parse={"type": float},
        convert=_positive_cost,
    ),
    RunFlag(
        flag="--think",
        metavar="[BUDGET]",
        help="extended thinking for this run: adaptive, a budget in tokens (--think 16000), or off",
        parse={"nargs": "?", "const": "adaptive"},
        convert=_think,
    ),
    RunFlag(
        flag="--effort",
        metavar="LEVEL",
        help=f"how hard the model works on this run: {' | '.join(EFFORTS)} (models that take effort)",
        parse={"choices": list(EFFORTS)},
    ),
    RunFlag(
        flag="--quiet",
        help="cards and intermediate text collapsed; only the final answer open",
        parse={"action": "store_true"},
    ),
)


def run_options(parsed: Any) -> RunOptions:
    """The parsed flags (an argparse namespace) as one value; ValueError says which flag is wrong."""
    values: dict[str, Any] = {}
    for flag in RUN_FLAGS:
        value = getattr(parsed, flag.dest)
        values[flag.dest] = flag.convert(value) if flag.convert is not None and value is not None else value
    return RunOptions(**{k: v for k, v in values.items() if v is not None})
