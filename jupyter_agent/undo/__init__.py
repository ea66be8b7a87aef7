"""`%agent undo`, in one place: a run's journal is reverted newest first, file by file and cell by cell.

`base.journal` is the record the tools write while they work; this package reads it back. Every step is
guarded like an edit: what the user changed after the agent is kept, with the reason.
"""
