"""The README's Python quick start runs as written (every ```python block of its
"Quick start: Python" section, in order, in one namespace; they assert their results)."""

import pathlib
import re

README = pathlib.Path(__file__).resolve().parents[2] / "README.md"


def test_readme_python_quick_start():
    text = README.read_text(encoding="utf-8")
    section = text.split("## Quick start: Python", 1)[1].split("\n## ", 1)[0]
    blocks = re.findall(r"```python\n(.*?)```", section, flags=re.S)
    assert blocks, "README has no python block in its Python quick start"
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(README), "exec"), namespace)
    assert namespace["a"].tolist() == [0, 1, 2] and namespace["b"].tolist() == list(range(3, 10))
