"""The tools the package ships (files, notebooks, the kernel, Bash, the web, MCP, the agent's own workflow);
`catalog.py` says which a session offers.

Each is written against the tool framework (`tools/`) and the permission rules (`permissions/`), as a user's
own `@jupyter_agent.tool` is; neither imports a tool from here.
"""
