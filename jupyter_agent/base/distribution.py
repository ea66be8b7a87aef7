"""The name the package is installed by (`pip install jupyter-claude-agent`), for messages that say to upgrade it.

The import name stays `jupyter_agent` (`%load_ext jupyter_agent`); `jupyter-agent` on the package index is
another project. A unit test checks this against pyproject.toml's `[project] name`.
"""

DISTRIBUTION = "jupyter-claude-agent"
