"""Go's ``text/tabwriter``, which lays out everything kubectl prints in columns (``get`` tables, ``describe``).

Text is lines of tab-terminated cells; the text after a line's last tab is not
a cell and is never padded. A column is aligned over a run of consecutive
lines that all have a cell in it, so a line with fewer cells ends the run —
the way a heading such as ``Containers:`` starts a new alignment in
``kubectl describe``.
"""

from __future__ import annotations

from collections.abc import Sequence


def tabwrite(lines: Sequence[Sequence[str]], padding: int, min_width: int = 0) -> list[str]:
    """Lay out ``lines`` (each a list of cells, the last one trailing text) as tabwriter.Writer.Flush does."""
    rows = [list(line) for line in lines]
    widths: list[list[int]] = [[] for _ in rows]  # the width of each cell of each line
    _format(rows, widths, 0, 0, len(rows), padding, min_width)
    out = []
    for row, row_widths in zip(rows, widths, strict=True):
        cells = [cell.ljust(width) for cell, width in zip(row[:-1], row_widths, strict=True)]
        out.append("".join(cells) + (row[-1] if row else ""))
    return out


def _format(
    rows: list[list[str]], widths: list[list[int]], column: int, first: int, last: int, padding: int, min_width: int
) -> None:
    """Widths of ``column`` for each run of lines in [first, last) that have a cell in it, then the next column."""
    line = first
    while line < last:
        if column >= len(rows[line]) - 1:
            line += 1
            continue
        start = line
        width = min_width
        while line < last and column < len(rows[line]) - 1:
            width = max(width, len(rows[line][column]) + padding)
            line += 1
        for i in range(start, line):
            widths[i].append(width)
        _format(rows, widths, column + 1, start, line, padding, min_width)
