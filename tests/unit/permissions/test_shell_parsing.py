"""What the command analysis makes of a line: its subcommands (as rules see them), which an allow rule may
match, and whether the line was understood — one row per construct, plus ANSI-C decoding, wrappers and the
pattern automaton's three questions."""

from __future__ import annotations

import shlex

import pytest

from jupyter_agent.permissions.command_patterns import compile_pattern
from jupyter_agent.permissions.commands import split_command
from jupyter_agent.permissions.shell_words import decode_ansi_c, expands_unquoted

ROWS: list[tuple[str, bool, list[tuple[str, bool]]]] = [
    ("git status", True, [("git status", True)]),
    ("ls -la | wc -l", True, [("ls -la", True), ("wc -l", True)]),
    ("a && b || c; d & e", True, [("a", True), ("b", True), ("c", True), ("d", True), ("e", True)]),
    ("(cd x && make)", True, [("cd x", True), ("make", True)]),
    ("{ a; b; }", True, [("a", True), ("b", True)]),
    ("if a; then b; elif c; then d; else e; fi", True, [(w, True) for w in "abcde"]),
    ("while a; do b; done", True, [("a", True), ("b", True)]),
    ("for i in 1 2; do echo $i; done", True, [("echo …", True)]),
    ("case $x in a) b;; *) c;; esac", True, [("b", True), ("c", True)]),
    ("f() { rm x; }", True, [("rm x", True)]),
    ("echo $(date)", True, [("date", True), ("echo …", True)]),
    ("echo `date`", True, [("date", True), ("echo …", True)]),
    ("diff <(ls a) <(ls b)", True, [("ls a", True), ("ls b", True), ("diff … …", True)]),
    ("cat <<EOF\n$(id)\nEOF", True, [("cat", False), ("id", True)]),
    ("cat <<'EOF'\n$(id)\nEOF", True, [("cat", False)]),
    ("echo 'a;b' \"c;d\"", True, [("echo 'a;b' 'c;d'", True)]),
    ("echo $'a\\'b'", True, [("echo 'a'\"'\"'b'", True)]),
    ("A=1 make", True, [("make", False)]),
    ("export A=1", True, [("export 'A=…'", False)]),
    ("x=$(id)", True, [("id", True)]),
    ("echo ${x:-$(id)}", True, [("id", True), ("echo …", True)]),
    ("echo *.py {a,b} \\*", True, [("echo … … '*'", True)]),
    ("nice -n 5 rm x", True, [("nice -n 5 rm x", True), ("rm x", True)]),
    ("env A=1 rm x", True, [("env A=1 rm x", True), ("rm x", False)]),
    ("timeout -s KILL 5 rm x", True, [("timeout -s KILL 5 rm x", True), ("rm x", True)]),
    ("xargs -n1 rm", True, [("xargs -n1 rm", True), ("rm …", True)]),
    ("xargs -I{} rm {} x", True, [("xargs '-I{}' rm '{}' x", True), ("rm …", True)]),
    ("sudo -u root rm x", True, [("sudo -u root rm x", True), ("rm x", True)]),
    ("bash -c 'rm x; ls'", True, [("bash -c 'rm x; ls'", True), ("rm x", True), ("ls", True)]),
    ("bash -lc ls", True, [("bash -lc ls", True), ("ls", True)]),
    ('sh -c "$y"', True, [("sh -c …", True), ("…", False)]),
    ("eval 'rm x'", True, [("eval 'rm x'", False), ("rm x", True)]),
    ("env -S 'rm x'", True, [("env -S 'rm x'", True), ("rm x", True)]),
    ("time -p ls", True, [("time -p ls", True), ("ls", True)]),
    ("printf -v x y", True, [("printf -v x y", False)]),
    ("ls > out", True, [("ls", False)]),
    ("nice ls > out", True, [("nice ls", False), ("ls", False)]),
    ("! ls # comment 'x'", True, [("ls", True)]),
    ("nice --foo rm x", True, [("nice --foo rm x", True), ("…", False)]),
    ("bash script.sh", True, [("bash script.sh", True)]),
    ("[[ -f x ]]", True, [("'[[' -f x ']]'", True)]),
]


@pytest.mark.parametrize(("command", "parsed", "expected"), ROWS, ids=[r[0] for r in ROWS])
def test_the_subcommands_of_a_line(command: str, parsed: bool, expected: list[tuple[str, bool]]) -> None:
    found = split_command(command)
    assert found.parsed == parsed
    assert [(s.text, s.allowable) for s in found.subcommands] == expected
    assert found.text == command.strip()


NOT_UNDERSTOOD = [
    'echo "unterminated',
    "r\\\nm x",
    "echo $((1+2))",
    "(( x ))",
    "echo ${x#y}",
    "[[ $x == y ]]",
    "a[$(id)]=1",
    "PATH=/x; ls",
    "for PATH in x; do ls; done",
    "https_proxy=http://evil; curl x",
    "cat <<EOF\n`id`\nEOF",
    'echo $"x"',
    "ls \\  ; rm x",
    "for ((i=0;i<3;i++)); do ls; done",
]


@pytest.mark.parametrize("command", NOT_UNDERSTOOD)
def test_what_the_analysis_does_not_model_matches_no_allow_rule(command: str) -> None:
    assert not split_command(command).parsed


def test_a_line_not_understood_offers_every_run_of_words_to_deny_rules() -> None:
    found = split_command('git status "x; rm -rf /')
    texts = [s.text for s in found.subcommands]
    assert "rm -rf /" in texts and all(not s.allowable for s in found.subcommands[1:])


def test_a_huge_line_that_does_not_parse_stays_linear() -> None:
    words = ['"'] + [f"w{i}" for i in range(5_000)]
    found = split_command(" ".join(words))
    assert not found.parsed
    assert max(len(s.words) for s in found.subcommands) <= 65  # 64 words, then a hole


def test_deep_bash_c_nesting_becomes_a_hole() -> None:
    line = "ls"
    for _ in range(6):
        line = f"bash -c {shlex.quote(line)}"
    assert "…" in [s.text for s in split_command(line).subcommands]


@pytest.mark.parametrize(
    ("body", "text"),
    [
        ("a\\'b", "a'b"),
        ("\\x72\\x6d", "rm"),
        ("\\162\\155", "rm"),
        ("\\u0072m", "rm"),
        ("\\U0001F600", "\U0001f600"),
        ("\\t\\n\\\\", "\t\n\\"),
        ("\\cA", "\x01"),
        ("\\e\\E\\a\\b\\f\\r\\v", "\x1b\x1b\x07\x08\x0c\r\x0b"),
        ('\\"\\?', '"?'),
        ("\\q", "\\q"),
        ("ab\\x00cd", "ab"),
        ("\\UFFFFFFFF", "\ufffd"),
    ],
)
def test_ansi_c_strings_decode_as_bash_decodes_them(body: str, text: str) -> None:
    assert decode_ansi_c(body) == text


@pytest.mark.parametrize(
    ("text", "expands"),
    [
        ("*.py", True),
        ("a?", True),
        ("[ab]", True),
        ("\\*", False),
        ("{a,b}", True),
        ("x{1..3}", True),
        ("{a}", False),
        ("\\{a,b\\}", False),
        ("plain", False),
    ],
)
def test_unquoted_globs_and_braces_are_holes(text: str, expands: bool) -> None:
    assert expands_unquoted(text) == expands


@pytest.mark.parametrize(
    ("pattern", "text", "matches", "could", "all_after"),
    [
        ("git status*", "git status", True, True, True),
        ("git status*", "git ", False, True, False),
        ("git diff", "git diff", True, True, False),
        ("git diff", "git diff ", False, False, False),
        ("rm -rf*", "rm ", False, True, False),
        ("rm -rf*", "ls ", False, False, False),
        ("npm test:*", "npm test", True, True, False),
        ("npm test:*", "npm test ", True, True, True),
        ("npm test:*", "npm tests", False, False, False),
        ("a?c", "abc", True, True, False),
        ("a\\*c", "a*c", True, True, False),
        ("a\\*c", "abc", False, False, False),
        ("*", "", True, True, True),
        ("a**b", "axyb", True, True, False),
        ("git * --force", "git push --force", True, True, False),
        ("git * --force", "git push ", False, True, False),
    ],
)
def test_a_pattern_answers_matches_could_match_and_matches_all(
    pattern: str, text: str, matches: bool, could: bool, all_after: bool
) -> None:
    compiled = compile_pattern(pattern)
    assert (compiled.matches(text), compiled.could_match(text), compiled.matches_all(text)) == (
        matches,
        could,
        all_after,
    )


MORE_ROWS: list[tuple[str, bool, list[tuple[str, bool]]]] = [
    ("{ ls; } > f", True, [("ls", False)]),
    ("f() { ls; } > f", True, [("ls", False)]),
    ("for x in a; do ls; done > f", True, [("ls", False)]),
    ("case x in a) ls;; esac > f", True, [("ls", False)]),
    ("[[ -f x ]] > f", True, [("'[[' -f x ']]'", False)]),
    ("bash -c ls > out", True, [("bash -c ls", False), ("ls", False)]),
    ("A=1 bash -c ls", True, [("bash -c ls", False), ("ls", False)]),
    ("bash -c 'ls > f'", True, [("bash -c 'ls > f'", True), ("ls", False)]),
    ("declare $(rm y)", True, [("rm y", True), ("declare …", False)]),
    ("case $(rm x) in a) b;; esac", True, [("rm x", True), ("b", True)]),
    ("timeout --signal=KILL 5 rm x", True, [("timeout --signal=KILL 5 rm x", True), ("rm x", True)]),
    ("timeout --signalKILL 5 rm x", True, [("timeout --signalKILL 5 rm x", True), ("…", False)]),
    ("nice --foo=1 rm x", True, [("nice --foo=1 rm x", True), ("…", False)]),
    ("nice -n5 rm x", True, [("nice -n5 rm x", True), ("rm x", True)]),
    ("nice -n 5", True, [("nice -n 5", True)]),
    ("nice -- rm x", True, [("nice -- rm x", True), ("rm x", True)]),
    ("sudo -- rm x", True, [("sudo -- rm x", True), ("rm x", True)]),
    ("nice - x", True, [("nice - x", True), ("- x", True)]),
    ("nice -10 rm x", True, [("nice -10 rm x", True), ("rm x", True)]),
    ("nice $x rm", True, [("nice … rm", True), ("…", False)]),
    ("sudo A=1 rm x", True, [("sudo A=1 rm x", True), ("rm x", False)]),
    ("case x in $(rm y)) z;; esac", True, [("rm y", True), ("z", True)]),
    ("timeout --signal=A=B 5 rm x", True, [("timeout --signal=A=B 5 rm x", True), ("rm x", True)]),
    ("nice -zz rm x", True, [("nice -zz rm x", True), ("…", False)]),
]


@pytest.mark.parametrize(("command", "parsed", "expected"), MORE_ROWS, ids=[r[0] for r in MORE_ROWS])
def test_redirections_variables_and_wrappers_carry_over(
    command: str, parsed: bool, expected: list[tuple[str, bool]]
) -> None:
    found = split_command(command)
    assert found.parsed == parsed
    assert [(s.text, s.allowable) for s in found.subcommands] == expected


@pytest.mark.parametrize(
    "command",
    ["[[ ${x} == y ]]", "[[ -n $(id) ]]", "[[ $((1)) -eq 1 ]]", "echo ${}", "echo ${#x}", "echo ${x:1}"],
)
def test_more_constructs_not_modelled(command: str) -> None:
    found = split_command(command)
    assert not found.parsed
    if "$(id)" in command:
        assert "id" in [s.text for s in found.subcommands]


def test_the_readings_a_deny_rule_gets() -> None:
    from jupyter_agent.permissions.commands import CommandWords

    assert CommandWords(("rm", "-rf")).forms() == (("rm -rf", True),)
    assert CommandWords(("a b", "c")).forms() == (("'a b' c", True), ("a b c", True))
    assert CommandWords(("rm", None, "x")).forms() == (("rm ", False),)
    assert CommandWords(("a b", None)).forms() == (("'a b' ", False), ("a b ", False))
    assert CommandWords((None,)).forms() == (("", False),)
    assert CommandWords(("", "x")).text == "'' x"
