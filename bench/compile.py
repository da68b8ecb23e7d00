"""Build the optional compiled rules core: a copy of `app/` in `build/compiled/`, with every
module of `app/rules` compiled to a C extension by mypyc (shipped with mypy, the `dev` extra).

    python -m bench.compile            # build, unless the build is already up to date
    python -m bench.compile --check    # say whether the build is up to date (exit 1 if not)
    python -m bench.compile --force    # build even if up to date

The pure-Python package in `app/` stays what the project runs and tests; nothing is ever
compiled in place, so no extension module can shadow the sources. The build is a separate
tree: code imports it by having `build/compiled` first on `sys.path` (as
`bench/bench_selfplay.py` does in a subprocess). A stamp records a fingerprint of every file
under `app/`, the Python version and the mypy version; a build whose stamp does not match the
current sources is stale and the benchmark will not use it.

Needs a C compiler and the Python headers besides mypy. Compiling takes about two minutes.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
BUILD = ROOT / "build" / "compiled"
STAMP = "compiled-stamp.json"
PACKAGE = "app"
COMPILED = "app/rules"
_SKIPPED_DIRS = {"__pycache__"}
_SKIPPED_SUFFIXES = {".pyc", ".so", ".pyd"}


def _wanted(path: Path) -> bool:
    return not (_SKIPPED_DIRS & set(path.parts)) and path.suffix not in _SKIPPED_SUFFIXES


def sources(root: Path = ROOT) -> list[str]:
    """Every file of the package copied into the build (relative paths, sorted)."""
    base = root / PACKAGE
    return sorted(
        p.relative_to(root).as_posix()
        for p in base.rglob("*")
        if p.is_file() and _wanted(p.relative_to(root))
    )


def compiled_modules(root: Path = ROOT) -> list[str]:
    """The modules mypyc compiles: every module of `app/rules` but the package `__init__`s
    (they only import; left as Python, the packages stay ordinary packages)."""
    return [
        s for s in sources(root)
        if s.startswith(COMPILED + "/") and s.endswith(".py") and not s.endswith("__init__.py")
    ]


def _mypy_version() -> str:
    try:
        return importlib.metadata.version("mypy")
    except importlib.metadata.PackageNotFoundError:
        return "none"


def fingerprint(root: Path = ROOT) -> str:
    """What a build depends on: the package's files, the Python and the mypy version."""
    h = hashlib.sha256()
    h.update(f"python {sys.version}\nmypy {_mypy_version()}\n".encode())
    for rel in sources(root):
        data = (root / rel).read_bytes()
        h.update(f"{rel}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


@dataclass(frozen=True)
class Status:
    state: str  # "fresh", "stale" or "missing"
    fingerprint: str
    built: str | None  # the stamp's fingerprint, if there is a stamp

    @property
    def fresh(self) -> bool:
        return self.state == "fresh"

    def describe(self, build: Path = BUILD) -> str:
        if self.state == "fresh":
            return f"compiled build in {build} is up to date"
        if self.state == "missing":
            return f"no compiled build in {build}: run `python -m bench.compile`"
        return f"the compiled build in {build} is stale (sources changed): run `python -m bench.compile`"


def status(root: Path = ROOT, build: Path = BUILD) -> Status:
    """Whether `build` holds a build of the current sources of `root`."""
    current = fingerprint(root)
    try:
        built = json.loads((build / STAMP).read_text())["fingerprint"]
    except (OSError, ValueError, KeyError, TypeError):
        return Status("missing", current, None)
    return Status("fresh" if built == current else "stale", current, built)


def build(root: Path = ROOT, out: Path = BUILD, quiet: bool = False) -> Status:
    """Copy the package into `out` and compile `app/rules` there; write the stamp last, so an
    interrupted build stays 'missing'."""
    if _mypy_version() == "none":
        raise SystemExit("mypy (which ships mypyc) is not installed: pip install -e '.[dev]'")
    current = fingerprint(root)
    if out.exists():
        shutil.rmtree(out)
    out.mkdir(parents=True)
    for rel in sources(root):
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(root / rel, target)
    cmd = [sys.executable, "-m", "mypyc", *compiled_modules(root)]
    result = subprocess.run(cmd, cwd=out, capture_output=quiet, text=True, check=False)
    if result.returncode != 0:
        if quiet:
            sys.stderr.write(result.stdout[-4000:] + result.stderr[-4000:])
        raise SystemExit(f"mypyc failed (exit {result.returncode})")
    shutil.rmtree(out / "build", ignore_errors=True)  # mypyc's C sources and object files
    shutil.rmtree(out / ".mypy_cache", ignore_errors=True)
    if fingerprint(root) != current:
        raise SystemExit("the sources changed while compiling: run `python -m bench.compile` again")
    (out / STAMP).write_text(json.dumps({"fingerprint": current, "modules": compiled_modules(root)}))
    return status(root, out)


def probe(app_root: Path, module: str, *args: object) -> dict[str, Any]:
    """Run `module.probe_main()` with `args` in a fresh interpreter that imports `app` from
    `app_root` (this tree, or a build); the JSON object it prints last. It must name the
    `app` package it imported (`"app": app.__file__`), which is checked."""
    code = (
        f"import sys; sys.path[:0] = [{str(app_root)!r}, {str(ROOT)!r}]; "
        f"from {module} import probe_main; probe_main()"
    )
    env = dict(os.environ, PYTHONPATH=str(app_root))
    done = subprocess.run(
        [sys.executable, "-c", code, *map(str, args)],
        cwd=app_root, env=env, capture_output=True, text=True, check=False,
    )
    if done.returncode != 0:
        raise RuntimeError(f"the {module} probe in {app_root} failed:\n{done.stderr[-3000:]}")
    result: dict[str, Any] = json.loads(done.stdout.splitlines()[-1])
    if not result["app"].startswith(str(app_root)):
        raise RuntimeError(f"the probe imported {result['app']}, not the package in {app_root}")
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.compile", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--check", action="store_true", help="only say whether it is up to date")
    parser.add_argument("--force", action="store_true", help="rebuild even if up to date")
    parser.add_argument("--quiet", action="store_true", help="hide mypyc's output")
    args = parser.parse_args(argv)
    now = status()
    if args.check or (now.fresh and not args.force):
        print(now.describe())
        return 0 if now.fresh else 1
    print(f"compiling {len(compiled_modules())} modules of {COMPILED} into {BUILD} ...", flush=True)
    print(build(quiet=args.quiet).describe())
    return 0


if __name__ == "__main__":
    sys.exit(main())
