"""Notebooks: one interface, two backends (live and file), and how cells are shown to the model."""
