"""Text logs: one format-agnostic reader for every console capture and pasted excerpt.

`text.read` finds `(step, metric -> value)` in any line (lines.py cleans what
users paste, shapes.py reads one line's layout once and caches it, tables.py
maps header rows), and `profiles.py` holds what a named trainer adds on top
(its quirks as facts, its placeholders, its eval lines).
"""
