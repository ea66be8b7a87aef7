"""What the tools and the notebook layer both build on: errors, the result shape, the sandbox, the run journal,
the guards that type JSON arriving untyped.

Nothing here imports `tools/`, `notebook/` or anything above them, so both can use it without importing
each other.
"""
