"""Permissions and the analysis of shell commands: the allow / ask / deny rules and the modes (`policy.py`), a
Bash line parsed into the commands it runs (`shell_syntax.py`, `shell_word_walk.py`, `commands.py`), the paths no
tool may write (`protected.py`) and the Bash sandbox (`bubblewrap.py`, `sandbox_guard.py`).

It builds only on `base/`: the tool framework (`tools/`) and the built-in tools (`builtin_tools/`) ask it, and
nothing here imports them.
"""
