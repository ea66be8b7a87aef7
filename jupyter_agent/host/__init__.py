"""The kernel host layer, between the magics and the agent session.

- `options`: one run's flags (`RUN_FLAGS`) and their parsed value (`RunOptions`).
- `configure`: settings and run options → the session's config, rules, hooks, tools and roots.
- `build`: a new session from the settings and the kernel's services (`HostServices`).
- `commands`: the `%agent` subcommand table and the help text built from the declarations.
- `texts`: what `%agent status`, `tools` and `history` print.
"""
