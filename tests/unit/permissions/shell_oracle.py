"""Bash itself as the oracle for the command analysis: generated commands, run by bash in the sandbox.

`generate(seed, count)` builds commands from a grammar (lists, pipelines, subshells, groups, if/for/while/case,
functions, heredocs, substitutions, quoting of every kind — plain, '…', "…", $'…' with `\\'`, backslashes —,
comments holding quotes, wrappers, `bash -c`, `eval`). `run_in_bash` runs each one with `bash -c` inside
bubblewrap with a DEBUG trap (inherited by functions, subshells and substitutions: `set -T`) that logs every
simple command bash executes, and every program of the vocabulary replaced by a script that logs its argv
(`echo`, `true`, `false`, `test`, `[`, `pwd`, `kill` are disabled as builtins so they are programs too).

`check` compares: when the analysis says an allow rule could pass (the line parsed, every subcommand allowable),
every argv bash ran must be a subcommand the analysis saw (the same words; a hole matches any continuation),
and every command name the DEBUG trap logged must be one the analysis saw. Anything else is a miss.
"""

from __future__ import annotations

import os
import random
import shlex
import subprocess
from dataclasses import dataclass
from pathlib import Path

from jupyter_agent.permissions.bubblewrap import check_sandbox
from jupyter_agent.permissions.commands import ParsedCommand, split_command

VOCABULARY = ("rm", "git", "ls", "cat", "curl", "echo", "true", "false", "touch", "wc", "grep", "id", "pwd")
DISABLED_BUILTINS = ("echo", "true", "false", "pwd")
_RECORD, _WORD = "\x1e", "\x1f"
#: What the DEBUG trap reports for compound commands (not simple commands): not compared.
_COMPOUND_STARTS = ("for ", "case ", "select ", "((", "[[", "while ", "until ", "if ")

PRELUDE = f"""enable -n {" ".join(DISABLED_BUILTINS)}
set -T
trap 'printf "%s{_RECORD}" "$BASH_COMMAND" >> "$DEBUG_LOG"' DEBUG
"""
#: One write per record: commands in a pipeline or a process substitution log at the same time.
LOGGER = f"""#!/bin/sh
r="{_RECORD}${{0##*/}}"
for a in "$@"; do r="$r{_WORD}$a"; done
printf '%s' "$r" >> "$ARGV_LOG"
[ "${{0##*/}}" = false ] && exit 1
exit 0
"""
DRIVER = """i=0
while IFS= read -r -d '' cmd; do
  DEBUG_LOG="$OUT/$i.debug" ARGV_LOG="$OUT/$i.argv" BASH_ENV="$PRELUDE" \
    timeout -s KILL 5 bash -c "$cmd" </dev/null >/dev/null 2>&1
  i=$((i+1))
done < "$CASES"
"""


class Grammar:
    """Random commands, deterministic for a seed."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def pick(self, *options: str) -> str:
        return self.rng.choice(options)

    def name(self) -> str:
        word = self.rng.choice(VOCABULARY)
        style = self.rng.randrange(9)
        if style == 1:
            return f"'{word}'"
        if style == 2:
            return f'"{word}"'
        if style == 3:
            return f"{word[0]}'{word[1:]}'"
        if style == 4:
            return "$'" + "".join(f"\\x{ord(c):02x}" for c in word) + "'"
        if style == 5:
            return "\\" + word
        if style == 6:
            return f"{word[:1]}\\{word[1:]}"
        return word

    def literal(self) -> str:
        return self.pick(
            "a", "-f", "-rf", "x.txt", "status", "--short", "/", "b c", "'", '"', ";", "&&", "#", "$"
        )

    def argument(self, depth: int) -> str:
        text = self.literal()
        deep = depth < 2
        styles = [
            lambda: shlex.quote(text),
            lambda: '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("$", "\\$") + '"',
            lambda: "$'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'",
            lambda: self.pick("$'\\''", "$'a\\'b'", "$'\\x27'", "$'\\047'", "$'\\u0027'", "$'\\t'"),
            lambda: self.pick("$x", '"$x"', "${x}", '"${x:-d}"', "$1", '"$@"', "$?"),
            lambda: self.pick("*.txt", "*", "{a,b}", "x{1..2}", "[ab]*", "\\*"),
            lambda: "\\" + self.pick(";", "'", '"', "&", "|", "$", " "),
        ]
        if deep:
            styles += [
                lambda: f"$({self.script(depth + 1)})",
                lambda: f'"$({self.script(depth + 1)})"',
                lambda: f"`{self.simple(depth + 1, plain=True)}`",
                lambda: f"<({self.simple(depth + 1)})",
                lambda: f'"${{x:-$({self.simple(depth + 1)})}}"',
            ]
        if self.rng.random() < 0.3:
            return shlex.quote(text) if any(c in text for c in " '\";&#$") else text
        return self.rng.choice(styles)()

    def simple(self, depth: int, *, plain: bool = False) -> str:
        words = [self.name()] + [self.argument(depth) for _ in range(self.rng.randrange(4))]
        text = " ".join(words)
        if plain:
            return text
        roll = self.rng.randrange(14)
        if roll == 0:
            text = f"A=1 {text}"
        elif roll == 1:
            text += self.pick(" > out.txt", " 2>&1", " < /dev/null", " >> log", " &>/dev/null")
        elif roll == 2:
            text = f"{self.pick('nice -n 1', 'env', 'env B=2', 'timeout 5', 'nohup', 'command', 'xargs', 'time', 'stdbuf -oL')} {text}"
        elif roll == 3:
            text += " # " + self.pick("'", '"', "; rm x", "$(id)", "`id`")
        return text

    def heredoc(self, depth: int) -> str:
        quoted = self.rng.random() < 0.3
        marker = "'EOF'" if quoted else "EOF"
        body = self.pick(
            "'", '"', "plain text", f"$({self.simple(depth + 1, plain=True)})", f"`{self.simple(depth + 1, plain=True)}`",
            "$x and ${x}", "a \\$(not) b", "EOF ", "$'\\''",
        )  # fmt: skip
        return f"{self.simple(depth, plain=True)} <<{marker}\n{body}\nEOF\n{self.simple(depth)}"

    def statement(self, depth: int) -> str:
        if depth >= 2 or self.rng.random() < 0.35:
            return self.simple(depth)
        d = depth + 1
        forms = [
            lambda: f"( {self.script(d)} )",
            lambda: f"{{ {self.script(d)}; }}",
            lambda: f"if {self.simple(d)}; then {self.script(d)}; else {self.simple(d)}; fi",
            lambda: f"for v in {self.argument(d)} b; do {self.script(d)}; done",
            lambda: f"while false; do {self.simple(d)}; done; until true; do {self.simple(d)}; done",
            lambda: f"case {self.argument(d)} in a) {self.script(d)};; *) {self.simple(d)};; esac",
            lambda: f"f() {{ {self.script(d)}; }}; f {self.argument(d)}",
            lambda: f"! {self.simple(d)}",
            lambda: self.heredoc(depth),
            lambda: f"bash -c {shlex.quote(self.script(d))}",
            lambda: f"eval {shlex.quote(self.simple(d))}",
            lambda: f"x={self.argument(d)}; {self.simple(d)}",
            lambda: f"{self.simple(d)} <<< {self.argument(d)}",
        ]
        return self.rng.choice(forms)()

    def script(self, depth: int = 0) -> str:
        parts = [self.statement(depth) for _ in range(1 + self.rng.randrange(3))]
        text = parts[0]
        for part in parts[1:]:
            text += self.pick("; ", " && ", " || ", " | ", " |& ", "\n", " & ", " ;\n") + part
        return text


def generate(seed: int, count: int) -> list[str]:
    grammar = Grammar(seed)
    return [grammar.script() for _ in range(count)]


@dataclass(frozen=True)
class Ran:
    argvs: list[tuple[str, ...]]
    debug: list[str]


def run_in_bash(commands: list[str], workdir: Path) -> list[Ran]:
    """Run every command with `bash -c` in one bubblewrap sandbox; what each one ran."""
    bubblewrap = check_sandbox().bubblewrap
    if bubblewrap is None:
        raise RuntimeError("bubblewrap is not usable here: the differential test needs it")
    bin_dir, out, work = workdir / "bin", workdir / "out", workdir / "work"
    for directory in (bin_dir, out, work):
        directory.mkdir(parents=True, exist_ok=True)
    for name in VOCABULARY:
        (bin_dir / name).write_text(LOGGER)
        (bin_dir / name).chmod(0o755)
    for name in ("a.txt", "b.txt", "x1", "-rf"):
        (work / name).write_text("")
    (workdir / "prelude.sh").write_text(PRELUDE)
    (workdir / "driver.sh").write_text(DRIVER)
    (workdir / "cases").write_bytes(b"".join(c.encode() + b"\0" for c in commands))
    env = {
        "PATH": f"{bin_dir}:/usr/bin:/bin",
        "OUT": str(out),
        "PRELUDE": str(workdir / "prelude.sh"),
        "CASES": str(workdir / "cases"),
        "HOME": str(work),
        "LANG": "C.UTF-8",
    }
    argv = bubblewrap.wrap(
        ["/bin/bash", str(workdir / "driver.sh")], writable=[workdir], cwd=work, env=env, network=False
    )
    subprocess.run(argv, env=env, check=True, timeout=60 + len(commands))
    runs: list[Ran] = []
    for index in range(len(commands)):
        argvs = [
            tuple(record.split(_WORD)) for record in _read(out / f"{index}.argv").split(_RECORD) if record
        ]
        debug = [line for line in _read(out / f"{index}.debug").split(_RECORD) if line]
        runs.append(Ran(argvs, debug))
    return runs


def _read(path: Path) -> str:
    try:
        return path.read_bytes().decode("utf-8", "surrogateescape")
    except FileNotFoundError:
        return ""


def allow_could_pass(parsed: ParsedCommand) -> bool:
    """Whether some set of allow rules would let this command run without asking."""
    return parsed.parsed and bool(parsed.subcommands) and all(s.allowable for s in parsed.subcommands)


def analysed(command: str) -> bool:
    """Whether an allow rule could pass `command` (the analysis itself, uncached)."""
    return allow_could_pass(split_command.__wrapped__(command))


def _covers(words: tuple[str | None, ...], argv: tuple[str, ...]) -> bool:
    known: list[str] = []
    for word in words:
        if word is None:
            return tuple(argv[: len(known)]) == tuple(known)
        known.append(word)
    return tuple(known) == argv


def _debug_name(line: str) -> str | None:
    """The command name bash logged, when plain quoting decides it (else None: the argv log covers it)."""
    if line.startswith(_COMPOUND_STARTS) or any(c in line for c in "$`("):
        return None
    try:
        words = shlex.split(line, comments=False, posix=True)
    except ValueError:
        return None
    while words and "=" in words[0] and words[0].split("=", 1)[0].isidentifier():
        words = words[1:]
    return words[0].rstrip(")") if words else None  # bash prints a subshell's last command with its `)`


def check(command: str, ran: Ran) -> list[str]:
    """The misses for one command: what bash ran that the analysis did not see (only when allow could pass)."""
    parsed = split_command(command)
    if not allow_could_pass(parsed):
        return []
    subs = parsed.subcommands
    misses = [f"ran {list(argv)}" for argv in ran.argvs if not any(_covers(s.words, argv) for s in subs)]
    names = {s.words[0] for s in subs}
    for line in ran.debug:
        name = _debug_name(line)
        if name is not None and name not in names and os.path.basename(name) not in names:
            misses.append(f"debug {line!r}")
    return misses
