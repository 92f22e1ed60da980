"""``python -m tests.realism [CATALOG...]``: play every episode, print the table and the failures."""

from __future__ import annotations

import argparse

from .harness import CatalogReport, ratio, run


def table(reports: list[CatalogReport]) -> str:
    width = max(len(r.catalog) for r in reports)
    lines = [f"{'catalog':<{width}}  checks  ratio"]
    lines += [f"{r.catalog:<{width}}  {r.passed:>3}/{r.total:<3} {r.passed / r.total:>5.2f}" for r in reports]
    passed, total = ratio(reports)
    lines.append(f"realism: {passed}/{total} checks hold ({passed / total:.2f})")
    return "\n".join(lines)


def failures(reports: list[CatalogReport]) -> str:
    lines = []
    for report in reports:
        for o in report.failures:
            lines.append(f"{o.catalog} step {o.step} {o.tool}: {o.what}\n    {o.reason}\n    [{o.doc}]")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.realism", description=__doc__)
    parser.add_argument("catalogs", nargs="*", help="catalogs to play (default: all)")
    parser.add_argument("--quiet", action="store_true", help="the table only, no list of failures")
    args = parser.parse_args()
    reports = run(args.catalogs or None)
    if not args.quiet:
        print(failures(reports) + "\n")
    print(table(reports))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
