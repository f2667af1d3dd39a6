"""What must not reach students: solutions, hidden tests, reader cells or outputs left in release/."""

from __future__ import annotations

from pathlib import Path

import nbformat

from .cells import HIDDEN_TEST_MARKERS, READER_ONLY_TAG, SOLUTION_MARKERS, marked_regions


def _secret_regions(nb) -> list[str]:
    return [
        region
        for cell in nb.cells
        for markers in (SOLUTION_MARKERS, HIDDEN_TEST_MARKERS)
        for region in marked_regions(cell.source, markers)
        if region.strip()
    ]


def release_problems(root: str | Path, chapter: str) -> list[str]:
    """What in `release/<chapter>/` must not reach students (empty list: nothing)."""
    root = Path(root)
    source = nbformat.read(root / "source" / chapter / f"{chapter}.ipynb", 4)
    secrets = _secret_regions(source)
    problems = []
    for path in sorted((root / "release" / chapter).rglob("*")):
        if not path.is_file():
            continue
        if path.suffix != ".ipynb":
            problems.append(f"{path.name}: ノートブック以外のファイルは配らない予定です")
            continue
        nb = nbformat.read(path, 4)
        text = "\n".join(cell.source for cell in nb.cells)
        problems += [f"{path.name}: 解答か隠しテストが残っています: {s[:60]!r}" for s in secrets
                     if s in text]
        for i, cell in enumerate(nb.cells):
            if READER_ONLY_TAG in cell.metadata.get("tags", []):
                problems.append(f"{path.name} セル {i}: reader-only のセルが残っています")
            if cell.cell_type == "code" and (cell.outputs or cell.execution_count is not None):
                problems.append(f"{path.name} セル {i}: 出力が残っています")
    return problems

