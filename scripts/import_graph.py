"""The import graph of ``desktop``: core's package edges, its back-edges, and file circles.

Usage (from the repository root)::

    .venv/bin/python scripts/import_graph.py            # edges, back-edges, circles
    .venv/bin/python scripts/import_graph.py --typing   # count TYPE_CHECKING imports too

Imports inside functions count (a lazy import is still an import); imports under
``if TYPE_CHECKING:`` do not unless ``--typing`` is given (they never run). ``lint-imports``
counts those too, and its ``desktop.core layers`` contract in ``pyproject.toml`` names each
upward one in ``ignore_imports``. The layer order is read from that contract, so this script and
``lint-imports`` agree. Exits 1 when a core part imports one above it or two modules import each
other. ``tests/core/test_layering.py`` runs the same checks.
"""

from __future__ import annotations

import argparse
import sys
import tomllib
from collections import defaultdict
from collections.abc import Iterable
from pathlib import Path

import grimp

REPO = Path(__file__).resolve().parent.parent
CORE = "desktop.core"
CONTRACT = "desktop.core layers"

Edge = tuple[str, str]


def build(package: str = "desktop", *, typing_imports: bool = False) -> grimp.ImportGraph:
    """The import graph of ``package`` (found on ``sys.path``; no cache)."""
    return grimp.build_graph(
        package, exclude_type_checking_imports=not typing_imports, cache_dir=None
    )


def core_layers(pyproject: Path = REPO / "pyproject.toml") -> list[list[str]]:
    """The layers of the core contract, top first; each a list of sibling subpackage names."""
    config = tomllib.loads(pyproject.read_text(encoding="utf-8"))
    for contract in config["tool"]["importlinter"]["contracts"]:
        if contract["name"] == CONTRACT:
            return [
                [name.strip() for name in layer.replace(":", "|").split("|")]
                for layer in contract["layers"]
            ]
    raise LookupError(f"no {CONTRACT!r} contract in {pyproject}")


def _part(module: str, root: str) -> str | None:
    """The subpackage (or top module) of ``root`` that ``module`` belongs to."""
    if not module.startswith(root + "."):
        return None
    return module[len(root) + 1 :].split(".")[0]


def package_edges(graph: grimp.ImportGraph, root: str = CORE) -> dict[Edge, list[Edge]]:
    """``(importer part, imported part)`` → the module imports behind it, between parts of
    ``root``."""
    edges: dict[Edge, list[Edge]] = defaultdict(list)
    for module in sorted(graph.modules):
        source = _part(module, root)
        if source is None:
            continue
        for imported in sorted(graph.find_modules_directly_imported_by(module)):
            target = _part(imported, root)
            if target is not None and target != source:
                edges[source, target].append((module, imported))
    return dict(edges)


def back_edges(edges: dict[Edge, list[Edge]], layers: Iterable[Iterable[str]]) -> list[Edge]:
    """Module imports that run from a lower layer to a higher one (or to an unlisted part)."""
    rank = {name: index for index, layer in enumerate(layers) for name in layer}
    found: list[Edge] = []
    for (source, target), imports in sorted(edges.items()):
        if source not in rank or target not in rank or rank[source] > rank[target]:
            found.extend(imports)
    return found


def two_cycles(graph: grimp.ImportGraph, prefix: str = "desktop") -> list[Edge]:
    """Pairs of modules under ``prefix`` that import each other (each pair once, sorted)."""
    modules = [m for m in graph.modules if m == prefix or m.startswith(prefix + ".")]
    return sorted(
        (module, imported)
        for module in modules
        for imported in graph.find_modules_directly_imported_by(module)
        if module < imported and module in graph.find_modules_directly_imported_by(imported)
    )


def _where(graph: grimp.ImportGraph, importer: str, imported: str) -> str:
    lines = graph.get_import_details(importer=importer, imported=imported)
    return ", ".join(str(line["line_number"]) for line in lines) or "?"


def main(argv: list[str] | None = None) -> int:
    """Print the report; 1 when there is a back-edge or a circle."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--typing", action="store_true", help="count TYPE_CHECKING imports")
    args = parser.parse_args(argv)
    sys.path.insert(0, str(REPO))
    graph = build(typing_imports=args.typing)
    edges = package_edges(graph)
    layers = core_layers()
    print("Layers, top first:", " > ".join(" | ".join(layer) for layer in layers))
    print(f"\nEdges between {CORE} parts (module imports behind each):")
    for (source, target), imports in sorted(edges.items()):
        print(f"  {source:>10} -> {target:<10} {len(imports)}")
    backs = back_edges(edges, layers)
    print(f"\nBack-edges (a lower layer importing a higher one): {len(backs)}")
    for importer, imported in backs:
        print(f"  {importer} -> {imported} (line {_where(graph, importer, imported)})")
    cycles = two_cycles(graph)
    print(f"\nModules that import each other: {len(cycles)}")
    for first, second in cycles:
        print(f"  {first} (line {_where(graph, first, second)}) <-> {second} ", end="")
        print(f"(line {_where(graph, second, first)})")
    return 1 if backs or cycles else 0


if __name__ == "__main__":
    sys.exit(main())
