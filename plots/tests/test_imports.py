"""The plotting scripts import one way: occplot.py (the command) -> overlay.py -> study.py; no
module imports one that imports it back."""
import ast
from pathlib import Path

PLOTS = Path(__file__).resolve().parent.parent


def local_imports():
    modules = {p.stem: p for p in PLOTS.glob("*.py")}
    graph = {}
    for name, path in modules.items():
        imported = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                imported.update(a.name.split(".")[0] for a in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                imported.add(node.module.split(".")[0])
        graph[name] = sorted(imported & modules.keys() - {name})
    return graph


def test_plots_import_without_cycles():
    graph = local_imports()
    assert graph["study"] == [], "study.py is the bottom: it imports no other plotting module"
    assert "occplot" not in graph["overlay"], "overlay.py must not import the command"

    def reaches(start, target, seen=()):
        return any(n == target or (n not in seen and reaches(n, target, seen + (n,))) for n in graph[start])

    for name in graph:
        assert not reaches(name, name), f"{name}.py imports itself through {graph[name]}"
