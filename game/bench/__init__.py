"""Benchmarks: ``python3 -m game.bench [section ...]``.

Each section is a module in this package with ``run(args) -> None`` that
prints its figures (median of several runs, and the ratio against a simple
reference measured in the same run).  Sections are listed in ``SECTIONS``.
"""

#: section name -> module name inside game.bench
SECTIONS = {
    "method_a": "method_a",
    "sim": "sim",
    "scene": "scene",
    "compound": "compound",
    "rollback": "rollback",
    "render": "render",
    "netplay": "netplay",
    "server": "server",
}
