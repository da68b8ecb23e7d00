"""The optional compiled core (`python -m bench.compile`): what it compiles and when a build
is stale, checked without compiling (compiling takes minutes; bench_selfplay checks that the
compiled core plays the same hands)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from bench import compile as build


def _tree(root: Path) -> None:
    for rel, text in {
        "app/__init__.py": "",
        "app/rules/__init__.py": "",
        "app/rules/hand.py": "X = 1\n",
        "app/rules/variants/__init__.py": "",
        "app/rules/variants/lishui.py": "Y = 2\n",
        "app/tables/actor.py": "Z = 3\n",
    }.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _stamp(root: Path, out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    (out / build.STAMP).write_text(json.dumps({"fingerprint": build.fingerprint(root)}))


def test_the_rules_modules_are_compiled_and_the_package_inits_are_not() -> None:
    modules = build.compiled_modules()
    assert {"app/rules/hand.py", "app/rules/winning.py", "app/rules/variants/lishui.py"} <= set(
        modules
    )
    assert all(m.startswith("app/rules/") and not m.endswith("__init__.py") for m in modules)


def test_no_compiled_module_shadows_the_sources() -> None:
    app = build.ROOT / "app"
    assert not [p for p in app.rglob("*") if p.suffix in (".so", ".pyd")]


def test_a_build_is_missing_then_fresh_then_stale_when_a_source_changes(tmp_path: Path) -> None:
    root, out = tmp_path / "src", tmp_path / "out"
    _tree(root)
    assert build.status(root, out).state == "missing"
    _stamp(root, out)
    assert build.status(root, out).state == "fresh"
    (root / "app/rules/variants/lishui.py").write_text("Y = 3\n")
    stale = build.status(root, out)
    assert stale.state == "stale" and "python -m bench.compile" in stale.describe(out)


def test_a_change_outside_the_rules_also_makes_the_copy_stale(tmp_path: Path) -> None:
    root, out = tmp_path / "src", tmp_path / "out"
    _tree(root)
    _stamp(root, out)
    (root / "app/tables/new.py").write_text("")
    assert build.status(root, out).state == "stale"


def test_caches_and_build_artefacts_do_not_make_a_build_stale(tmp_path: Path) -> None:
    root, out = tmp_path / "src", tmp_path / "out"
    _tree(root)
    _stamp(root, out)
    (root / "app/rules/__pycache__").mkdir()
    (root / "app/rules/__pycache__/hand.cpython-311.pyc").write_bytes(b"\0")
    (root / "app/rules/hand.cpython-311-x86_64-linux-gnu.so").write_bytes(b"\0")
    assert build.status(root, out).state == "fresh"
    assert "app/rules/hand.cpython-311-x86_64-linux-gnu.so" not in build.sources(root)


def test_a_damaged_stamp_counts_as_no_build(tmp_path: Path) -> None:
    root, out = tmp_path / "src", tmp_path / "out"
    _tree(root)
    out.mkdir()
    (out / build.STAMP).write_text("{not json")
    assert build.status(root, out).state == "missing"


def _fake_probe(compiled: bool, digests: list[str], rate: float) -> dict[str, object]:
    return {"app": "", "compiled": compiled, "digests": digests, "totals": [100, 1, 0, 0],
            "rate": rate}


def test_the_benchmark_measures_no_missing_or_stale_build(tmp_path: Path) -> None:
    from bench import bench_selfplay

    text = bench_selfplay.compare(hands=1, rounds=1, build=tmp_path / "none")
    assert "not measured" in text and "python -m bench.compile" in text


def test_the_benchmark_reports_no_figure_when_the_compiled_core_plays_otherwise(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from bench import bench_selfplay

    fresh = build.Status("fresh", "x", "x")
    monkeypatch.setattr(build, "status", lambda root, out: fresh)
    probes = {build.ROOT: _fake_probe(False, ["a", "b"], 500.0),
              tmp_path: _fake_probe(True, ["a", "c"], 1000.0)}
    monkeypatch.setattr(bench_selfplay, "spawn", lambda root, v, h, r: probes[root])
    with pytest.raises(bench_selfplay.CompiledMismatch, match="different hands"):
        bench_selfplay.compare(hands=1, rounds=1, variants=("lishui",), build=tmp_path)
    probes[tmp_path]["digests"] = ["a", "b"]
    table = bench_selfplay.compare(hands=1, rounds=1, variants=("lishui",), build=tmp_path)
    assert "| lishui | 500 | 1,000 | 2.00x | yes |" in table


def test_the_win_check_comparison_reports_no_figure_when_the_cores_disagree(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from bench import bench_winning

    assert "not measured" in bench_winning.compiled_rows(tmp_path / "none")[0]
    fresh = build.Status("fresh", "x", "x")
    monkeypatch.setattr(build, "status", lambda root, out: fresh)
    rows = {build.ROOT: [[14, "random", 0, 3, 900_000.0]],
            tmp_path: [[14, "random", 0, 4, 1_800_000.0]]}
    monkeypatch.setattr(build, "probe", lambda root, module: {
        "app": "", "compiled": root == tmp_path, "rows": rows[root]})
    with pytest.raises(RuntimeError, match="other wins"):
        bench_winning.compiled_rows(tmp_path)
    rows[tmp_path][0][3] = 3
    table = bench_winning.compiled_rows(tmp_path)
    assert "| 14 | random | 0 | 900,000 | 1,800,000 | 2.00x |" in table
