"""The components (controllers, kubelets, scheduler) know the simulation only through ``clusterviz.api.component``."""

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
COMPONENT_PACKAGES = ("controllers", "kubelet", "scheduler")
FORBIDDEN = "clusterviz.sim"


def module_name(path: Path, root: Path) -> str:
    """``<root>/clusterviz/controllers/util.py`` -> ``clusterviz.controllers.util``."""
    parts = path.relative_to(root).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path, root: Path = ROOT) -> list[tuple[int, str]]:
    """Every module an import statement of ``path`` names (with each imported name, as it may be a module),
    relative imports resolved, wherever the statement is (top level, inside functions, under TYPE_CHECKING);
    ``importlib.import_module`` and ``__import__`` calls with a literal name too."""
    package = module_name(path, root).split(".")
    if path.name != "__init__.py":
        package = package[:-1]
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = package[: len(package) - node.level + 1] if node.level else []
            module = ".".join([*base, *([node.module] if node.module else [])])
            found.append((node.lineno, module))
            found += [(node.lineno, f"{module}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            func = node.func
            called = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
            if called in ("import_module", "__import__") and isinstance(node.args[0].value, str):
                found.append((node.lineno, node.args[0].value))
    return found


def is_forbidden(module: str) -> bool:
    return module == FORBIDDEN or module.startswith(FORBIDDEN + ".")


def component_modules() -> list[Path]:
    return sorted(p for package in COMPONENT_PACKAGES for p in (ROOT / "clusterviz" / package).rglob("*.py"))


@pytest.mark.parametrize("path", component_modules(), ids=lambda p: str(p.relative_to(ROOT)))
def test_components_do_not_import_the_simulation(path: Path):
    offending = [f"line {line}: {module}" for line, module in imported_modules(path) if is_forbidden(module)]
    assert not offending, f"{path.relative_to(ROOT)} imports the simulation: {offending}"


@pytest.mark.parametrize(
    ("source", "where"),
    [
        ("import clusterviz.sim.engine", "clusterviz/controllers/x.py"),
        ("from clusterviz.sim import engine", "clusterviz/controllers/x.py"),
        ("from clusterviz import sim", "clusterviz/kubelet/x.py"),
        ("from .. import sim", "clusterviz/kubelet/x.py"),
        ("from ..sim.context import Context", "clusterviz/scheduler/x.py"),
        ("from ...sim import bus", "clusterviz/scheduler/plugins/x.py"),
        ("def f():\n    from ..sim import registry", "clusterviz/controllers/x.py"),
        ("import importlib\nimportlib.import_module('clusterviz.sim.engine')", "clusterviz/controllers/x.py"),
    ],
)
def test_every_way_of_importing_the_simulation_is_caught(tmp_path: Path, source: str, where: str):
    path = tmp_path / where
    path.parent.mkdir(parents=True)
    path.write_text(source + "\n")
    assert any(is_forbidden(module) for _, module in imported_modules(path, tmp_path))


def test_a_sibling_import_is_not_taken_for_the_simulation(tmp_path: Path):
    path = tmp_path / "clusterviz/scheduler/x.py"
    path.parent.mkdir(parents=True)
    path.write_text("from . import simulation\nfrom .sim import y\nimport clusterviz.simple\n")
    assert not any(is_forbidden(module) for _, module in imported_modules(path, tmp_path))
