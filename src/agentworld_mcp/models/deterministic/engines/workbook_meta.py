"""The ``_meta`` keys a learned index-addressed workbook is written under (``sim2real/learn_workbook_start.py``)
and read from (``workbook_grid.py``): kept apart from the engine so ``learn`` runs without the engines extra."""

#: ``_meta`` key of a load tool's learned starting workbook.
START_META = "agentworld/start_workbook"
#: ``_meta`` key of a style read tool's learned shape (``{"base": {...}, "paths": {"bold": ["font", "bold"]}}``).
STYLE_META = "agentworld/workbook_style"
#: ``_meta`` key of a describe tool's learned extra keys (``{"order": [...], "constants": {...}, "file": "file"}``).
INFO_META = "agentworld/workbook_info"
#: ``_meta`` key of a write tool's learned answer: the text every recorded success printed (``"ok"``).
PRINTED_META = "agentworld/workbook_printed"

__all__ = ["INFO_META", "PRINTED_META", "START_META", "STYLE_META"]
