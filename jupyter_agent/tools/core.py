"""The shape of a tool: name, description, pydantic `Input` (the one source of schema), kind, annotations, run."""

from __future__ import annotations

import json
import weakref
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Literal, TypeVar

from pydantic import BaseModel, ConfigDict

from ..base.json_values import is_array, is_object
from ..base.result import ToolResult
from ..permissions.kinds import RuleKind, ToolKind

if TYPE_CHECKING:
    from .context import ToolContext


@dataclass(frozen=True, kw_only=True)
class ToolAnnotations:
    """Hints the permission layer and the scheduler act on (MCP's names). Unknown tools are assumed destructive."""

    read_only: bool = False
    destructive: bool = True
    idempotent: bool = False
    open_world: bool = False


#: Reads and changes nothing: runs without asking, alongside other reads, and is safe to repeat.
READ_ONLY = ToolAnnotations(read_only=True, destructive=False, idempotent=True)
#: Changes files or cells: asks unless the mode or a rule allows it, and runs alone.
WRITES = ToolAnnotations(read_only=False, destructive=True, idempotent=False)


class ToolInput(BaseModel):
    """Base for every tool input: unknown fields are errors (`additionalProperties: false`), docstrings describe."""

    model_config = ConfigDict(extra="forbid", use_attribute_docstrings=True, frozen=True)


InputT = TypeVar("InputT", bound=BaseModel)


#: What a pending call would do to one cell of the live page.
CellChangeKind = Literal["replace", "insert", "delete", "move", "clear_outputs", "run"]


@dataclass(frozen=True, kw_only=True)
class PendingCell:
    """A cell of the page's notebook that a call waiting for approval would change or run.

    The question is then also shown at that cell (the labextension draws it; nothing goes into the notebook).
    """

    #: The notebook's real path (the page showing it is the one that draws the question).
    notebook: str
    change: CellChangeKind
    #: The cell changed, moved or run ("" for insert: the new cell has no id yet).
    cell_id: str
    #: Its source now, and what it would become (replace, insert).
    before: str = ""
    after: str = ""
    cell_type: str = "code"
    #: insert and move: the cell it would follow (None: the top).
    after_id: str | None = None
    #: replace: its outputs would be cleared too.
    clears_outputs: bool = False


@dataclass(frozen=True, kw_only=True)
class Preview:
    """What an approval shows before the call runs: a diff, a command, or the arguments."""

    kind: Literal["diff", "code", "args"]
    text: str
    language: str = ""
    #: The cells of the live page it is about (shown there too); empty when not live or not about cells.
    cells: tuple[PendingCell, ...] = ()
    #: What the call may do beyond the preview, said under it (the kernel variables a RunCode may change).
    note: str = ""
    #: What the call is about in words ("cell 3 ('# clean')"), for the question; "" when its input says it.
    subject: str = ""


class Tool(Generic[InputT]):
    """A tool the model can call. Subclasses set the class attributes and implement `run`."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    kind: ClassVar[ToolKind] = "other"
    annotations: ClassVar[ToolAnnotations] = ToolAnnotations()
    Input: type[InputT]
    #: Which input field permission patterns like `Edit(notebooks/**)` match, and how it is matched.
    rule_field: ClassVar[str | None] = None
    rule_kind: ClassVar[RuleKind] = "text"
    #: The string input field shown on the call's card as the model writes it (code, a cell's source, a
    #: file's content); None for a tool whose input is short.
    streamed_field: ClassVar[str | None] = None

    @property
    def read_only(self) -> bool:
        """Read-only tools run without asking (in every mode but plan's refusals) and run concurrently."""
        return self.annotations.read_only

    def input_schema(self) -> dict[str, Any]:
        """The JSON schema of `Input`, as the model sees it."""
        return schema_for(self.Input)

    def to_param(self) -> dict[str, Any]:
        """The tool definition the Messages API takes."""
        return {"name": self.name, "description": self.description, "input_schema": self.input_schema()}

    def rule_path(self, params: InputT, ctx: ToolContext) -> Path | None:
        """For path rules: the absolute path the call names, as written (symlinks not resolved), or None."""
        if self.rule_kind != "path" or self.rule_field is None:
            return None
        value = getattr(params, self.rule_field, None)
        return None if value is None else ctx.sandbox.resolve_path(str(value))

    def rule_subject(self, params: InputT, ctx: ToolContext) -> str | None:
        """The string a rule's pattern is matched against (a path relative to the working directory, a command)."""
        if self.rule_kind == "path":
            path = self.rule_path(params, ctx)
            return None if path is None else ctx.sandbox.display_path(path)
        if self.rule_field is None:
            return None
        value = getattr(params, self.rule_field, None)
        return None if value is None else str(value)

    def title(self, params: InputT, ctx: ToolContext) -> str:
        """One line for people: `Edit utils.py`, `Bash git status`."""
        subject = self.rule_subject(params, ctx)
        return f"{self.name} {subject}" if subject else self.name

    def sensitive(self, params: InputT, ctx: ToolContext) -> str | None:
        """Why this call must ask even where the mode or a rule would let it run, or None.

        For a read-only look at a credential (Inspect), or a command that would run outside its OS sandbox
        (Bash). Only bypassPermissions skips the question; neither an allow rule nor a hook's Allow does.
        """
        return None

    async def preview(self, params: InputT, ctx: ToolContext) -> Preview:
        """What the approval widget shows; tools that change things override this with a diff or the code."""
        return Preview(kind="args", text=json.dumps(params.model_dump(mode="json", by_alias=True), indent=2))

    async def run(self, params: InputT, ctx: ToolContext) -> ToolResult:
        """Do the work on validated, permitted input; raise `ToolError` for a failure the model can fix."""
        raise NotImplementedError


AnyTool = Tool[Any]


class InstanceTool(Tool[InputT]):
    """A tool whose identity is set per instance (functions made tools, MCP server tools), not per class."""

    def __init__(
        self,
        *,
        name: str,
        description: str,
        input_model: type[InputT],
        kind: ToolKind,
        annotations: ToolAnnotations,
    ) -> None:
        self._name = name
        self._description = description
        self.Input = input_model
        self._kind: ToolKind = kind
        self._annotations = annotations

    @property
    def name(self) -> str:  # type: ignore[override]
        """The name the model calls."""
        return self._name

    @property
    def description(self) -> str:  # type: ignore[override]
        """What the model reads about the tool."""
        return self._description

    @property
    def kind(self) -> ToolKind:  # type: ignore[override]
        """What the call does (read, edit, …): the card's icon and what the mode lets run."""
        return self._kind

    @property
    def annotations(self) -> ToolAnnotations:  # type: ignore[override]
        """Read-only, destructive, idempotent: what the scheduler and the permission layer act on."""
        return self._annotations


def schema_for(model: type[BaseModel]) -> dict[str, Any]:
    """JSON schema from the pydantic model, minus the noise (titles) the model doesn't need.

    Made once per input class (the tool list is compared before every request); callers must not change it.
    """
    known = _SCHEMAS.get(model)
    if known is None:
        known = _SCHEMAS[model] = _schema(model)
    return known


_SCHEMAS: weakref.WeakKeyDictionary[type[BaseModel], dict[str, Any]] = weakref.WeakKeyDictionary()


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    schema = model.model_json_schema(by_alias=True)
    _strip_titles(schema)
    schema.setdefault("additionalProperties", False)
    schema.pop("description", None)
    return schema


def _strip_titles(node: Any) -> None:
    if is_object(node):
        node.pop("title", None)
        for key, value in node.items():
            if key == "properties" and is_object(value):
                for prop in value.values():
                    _strip_titles(prop)
            else:
                _strip_titles(value)
    elif is_array(node):
        for item in node:
            _strip_titles(item)


@dataclass(kw_only=True)
class ToolCall:
    """One tool_use block of a model turn."""

    id: str
    name: str
    input: Any
    #: Set when the model's JSON for the input could not be parsed (e.g. cut by max_tokens).
    raw_input_error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict[str, Any])
