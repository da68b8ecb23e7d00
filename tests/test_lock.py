"""The lock files (requirements/*.txt, made by requirements/compile.sh) stay in step with
pyproject.toml: every dependency it names is locked at a version within its bounds, every
locked file has its sha256 (the Dockerfile and .ci/run install them with --require-hashes,
which refuses anything unhashed), the files agree with each other, and nothing a locked
package needs is missing (read from the installed packages' metadata: nothing is
downloaded)."""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import NormalizedName, canonicalize_name
from packaging.version import Version

ROOT = Path(__file__).resolve().parent.parent
LOCKS = ROOT / "requirements"
REGENERATE = "regenerate the locks with requirements/compile.sh"


@dataclass(frozen=True)
class Pin:
    version: Version
    hashes: frozenset[str]


def _lock(name: str) -> dict[NormalizedName, Pin]:
    """A lock file's pins by normalized name: `name==version` with its --hash options."""
    text = (LOCKS / name).read_text()
    text = re.sub(r"#.*", "", text).replace("\\\n", " ")
    pins: dict[NormalizedName, Pin] = {}
    for line in text.splitlines():
        if not line.strip():
            continue
        first, *options = line.split()
        requirement = Requirement(first)
        specifiers = list(requirement.specifier)
        assert len(specifiers) == 1 and specifiers[0].operator == "==", f"{name}: {first} unpinned"
        hashes = frozenset(o.removeprefix("--hash=") for o in options if o.startswith("--hash="))
        assert len(hashes) == len(options), f"{name}: {first} has options other than --hash"
        key = canonicalize_name(requirement.name)
        assert key not in pins, f"{name}: {key} twice"
        pins[key] = Pin(Version(specifiers[0].version), hashes)
    return pins


def _pyproject() -> dict[str, list[Requirement]]:
    data = tomllib.loads((ROOT / "pyproject.toml").read_text())
    return {
        "runtime": [Requirement(line) for line in data["project"]["dependencies"]],
        "dev": [Requirement(line) for line in data["project"]["optional-dependencies"]["dev"]],
        "build": [Requirement(line) for line in data["build-system"]["requires"]],
    }


def _out_of_step(requirements: list[Requirement], lock: str) -> list[str]:
    pins = _lock(lock)
    wrong = []
    for requirement in requirements:
        pin = pins.get(canonicalize_name(requirement.name))
        if pin is None:
            wrong.append(f"{requirement} is not in requirements/{lock}")
        elif not requirement.specifier.contains(pin.version, prereleases=True):
            wrong.append(f"{requirement} is locked at {pin.version} in requirements/{lock}")
    return wrong


def test_every_dependency_pyproject_names_is_locked_within_its_bounds() -> None:
    """The runtime dependencies in runtime.txt (the image) and dev.txt (CI), the dev extras
    in dev.txt, the build system's in build.txt: each present, at a version its bounds in
    pyproject.toml allow."""
    declared = _pyproject()
    wrong = (
        _out_of_step(declared["runtime"], "runtime.txt")
        + _out_of_step(declared["runtime"] + declared["dev"], "dev.txt")
        + _out_of_step(declared["build"], "build.txt")
    )
    assert not wrong, f"the locks are behind pyproject.toml ({REGENERATE}):\n" + "\n".join(wrong)


@pytest.mark.parametrize("lock", ["runtime.txt", "dev.txt", "build.txt"])
def test_every_locked_file_is_pinned_with_its_hashes(lock: str) -> None:
    """pip's --require-hashes wants every package pinned with `==` and hashed; sha256 only."""
    pins = _lock(lock)
    assert pins
    for name, pin in pins.items():
        assert pin.hashes, f"{lock}: {name} has no hash"
        assert all(re.fullmatch(r"sha256:[0-9a-f]{64}", h) for h in pin.hashes), name


def test_the_locks_agree_with_each_other() -> None:
    """The image's runtime.txt is dev.txt's runtime part, at the same versions with the same
    hashes; what the build system shares with them (packaging) is at the same version too:
    the image installs build.txt and runtime.txt side by side."""
    runtime, dev, build = _lock("runtime.txt"), _lock("dev.txt"), _lock("build.txt")
    differ = [name for name, pin in runtime.items() if dev.get(name) != pin]
    differ += [name for name, pin in build.items() if name in runtime and runtime[name] != pin]
    assert not differ, f"locked differently ({REGENERATE}): {differ}"


def _needs(name: NormalizedName, extras: frozenset[str]) -> list[Requirement]:
    """What the installed `name` requires with `extras`, on this interpreter."""
    needed = []
    for line in metadata.requires(name) or []:
        requirement = Requirement(line)
        marker = requirement.marker
        if marker is None or any(marker.evaluate({"extra": e}) for e in extras | {""}):
            needed.append(requirement)
    return needed


def _missing_from(lock: str, roots: list[Requirement]) -> list[str]:
    """The packages that `roots` need, transitively, that `lock` lacks; followed through the
    installed packages that are at their locked versions (those are the metadata the lock
    was made from: CI installs the lock before the tests)."""
    pins = _lock(lock)
    missing: list[str] = []
    todo = [(r, "pyproject.toml") for r in roots]
    seen: set[tuple[NormalizedName, frozenset[str]]] = set()
    while todo:
        requirement, parent = todo.pop()
        name, extras = canonicalize_name(requirement.name), frozenset(requirement.extras)
        if (name, extras) in seen:
            continue
        seen.add((name, extras))
        if name not in pins:
            missing.append(f"{requirement} (needed by {parent})")
            continue
        try:
            installed = Version(metadata.version(name))
        except metadata.PackageNotFoundError:
            continue
        if installed == pins[name].version:
            todo += [(r, f"{name} {installed}") for r in _needs(name, extras)]
    return missing


def test_nothing_a_locked_package_needs_is_missing() -> None:
    """pip's --require-hashes refuses a dependency that is not in the file: the image's
    build would fail on a package added to a dependency's needs but not to the lock."""
    declared = _pyproject()
    missing = _missing_from("runtime.txt", declared["runtime"])
    missing += _missing_from("dev.txt", declared["runtime"] + declared["dev"])
    assert not missing, f"not locked ({REGENERATE}):\n" + "\n".join(missing)
