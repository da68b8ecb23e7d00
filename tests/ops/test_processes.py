"""`PROCESSES=N python -m app` refuses what cannot work, before it touches anything, and
stops with status 1 when a worker cannot start (app/ops/supervisor.py); the handoff
directory of a supervisor killed with SIGKILL is removed by the next one's start. A hand
played over two processes sharing a port is in tests/cluster/test_processes.py."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.loadtest.servers import free_port
from app.ops.handoff import DIRECTORY_PREFIX, handoff_directory, remove_abandoned
from app.ops.supervisor import (
    MAX_QUICK_DEATHS,
    STABLE_SECONDS,
    Supervisor,
    node_name,
    refusal,
)
from app.settings import Settings
from tests.cluster.processes import ROOT

SECRET = "processes-test-secret-" + "x" * 32
POSTGRES = "postgresql://mahjong@127.0.0.1:5432/mahjong"
REDIS = "redis://127.0.0.1:6379/0"


def _settings(**values: object) -> Settings:
    base: dict[str, object] = {
        "processes": 2, "database_url": POSTGRES, "redis_url": REDIS, "jwt_secret": SECRET,
        "node_id": "box",
    }
    return Settings(**(base | values))  # type: ignore[arg-type]


def test_one_process_is_never_refused() -> None:
    assert refusal(_settings(processes=1, redis_url=None, database_url="sqlite:///x.db")) is None
    assert refusal(_settings()) is None


def test_several_processes_need_a_cluster_a_shared_database_and_a_secret() -> None:
    assert "set REDIS_URL" in str(refusal(_settings(redis_url=None)))
    assert "set DATABASE_URL to PostgreSQL" in str(
        refusal(_settings(database_url="sqlite:///./mahjong.db"))
    )
    assert "JWT_SECRET is not set" in str(refusal(_settings(jwt_secret="")))
    assert "at most 48 characters" in str(refusal(_settings(node_id="n" * 49)))
    assert "past 65535" in str(refusal(_settings(metrics_port=65535)))
    assert refusal(_settings(metrics_port=65534)) is None


def test_workers_are_named_after_the_node_id_and_their_restarts() -> None:
    assert [node_name("box", i) for i in (1, 2)] == ["box-1", "box-2"]
    assert node_name("box", 2, 3) == "box-2.3"
    assert _settings(node_id=node_name("n" * 48, 64, 99_999)).node_id.endswith("-64.99999")


def test_the_workers_collect_their_whole_heaps_at_different_moments(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    started: list[dict[str, str]] = []
    real_popen = subprocess.Popen

    def popen(command: list[str], env: dict[str, str], **kwargs: object) -> subprocess.Popen[str]:
        started.append(env)
        return real_popen([sys.executable, "-c", "pass"], text=True)

    monkeypatch.setattr(subprocess, "Popen", popen)
    with socket.socket() as listener:
        supervisor = Supervisor(_settings(processes=3, gc_full_every=600), listener, tmp_path)
        for slot in supervisor.slots:
            supervisor._start(slot)
            assert slot.process is not None
            slot.process.wait()
    assert [float(env["GC_FULL_FIRST"]) for env in started] == [200, 400, 600]


def test_a_dead_worker_is_restarted_later_each_time_it_dies_young(tmp_path: Path) -> None:
    """0.5 s after a death, doubling while the worker keeps dying within STABLE_SECONDS
    of its start; the fifth such death in a row stops everything."""
    with socket.socket() as listener:
        supervisor = Supervisor(_settings(), listener, tmp_path)
        supervisor.serving = True  # every worker has served once
        slot = supervisor.slots[0]

        def dies(lived: float) -> float | None:
            """The pause before the restart, or None when the supervisor gives up."""
            slot.process = subprocess.Popen([sys.executable, "-c", "pass"])
            slot.process.wait()
            slot.started_at = 1000.0
            if not supervisor._died(slot, -9, 1000.0 + lived):
                return None
            return slot.restart_at - (1000.0 + lived)

        assert dies(STABLE_SECONDS + 1) == 0.5  # after a long life: soon
        assert [dies(1) for _ in range(MAX_QUICK_DEATHS - 1)] == [0.5, 1.0, 2.0, 4.0]
        assert dies(1) is None  # the fifth young death in a row
        slot.quick_deaths = 0
        assert [dies(STABLE_SECONDS - 1) for _ in range(2)] == [0.5, 1.0]
        assert dies(STABLE_SECONDS) == 0.5  # a long life starts the count again
        assert supervisor.slots[1].process is None  # the other slot was never touched


def _run(env: dict[str, str], tmp_path: Path, seconds: float) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "app"], check=False, cwd=tmp_path, capture_output=True,
        text=True, timeout=seconds, env=dict(os.environ) | {"PYTHONPATH": str(ROOT)} | env,
    )


def test_sqlite_is_refused_before_the_database_is_made(tmp_path: Path) -> None:
    database = tmp_path / "one.db"
    done = _run({
        "PROCESSES": "2", "DATABASE_URL": f"sqlite:///{database}", "REDIS_URL": REDIS,
        "JWT_SECRET": SECRET, "PORT": str(free_port()),
    }, tmp_path, 60)
    assert done.returncode == 1
    assert "PROCESSES=2 needs a database every process shares" in done.stderr
    assert not database.exists()


def test_a_worker_that_cannot_start_stops_them_all(tmp_path: Path) -> None:
    """Redis does not answer: each worker fails its start (as one `python -m app` would),
    and the supervisor stops the other and exits 1."""
    done = _run({
        "PROCESSES": "2", "DATABASE_URL": POSTGRES, "MIGRATE_ON_START": "false",
        "HOUSE_FLOAT": "0", "REDIS_URL": f"redis://127.0.0.1:{free_port()}/0",
        "JWT_SECRET": SECRET, "NODE_ID": "lost", "PORT": str(free_port()),
        "LOG_FORMAT": "json", "LOG_LEVEL": "info",
    }, tmp_path, 120)
    assert done.returncode == 1, done.stderr
    said = [
        entry["message"] for line in done.stderr.splitlines()
        if line.startswith("{") and (entry := json.loads(line))["logger"] == "app.ops.supervisor"
    ]
    assert any("before every worker served: stopping" in message for message in said), said
    assert not any(message.startswith("serving on") for message in said)


def _cannot_serve(tmp_path: Path, temp: Path) -> dict[str, str]:
    """A supervisor's environment whose workers fail their start (Redis does not answer),
    with `temp` as its temporary directory."""
    return {
        "PROCESSES": "2", "DATABASE_URL": POSTGRES, "MIGRATE_ON_START": "false",
        "HOUSE_FLOAT": "0", "REDIS_URL": f"redis://127.0.0.1:{free_port()}/0",
        "JWT_SECRET": SECRET, "NODE_ID": "gone", "PORT": str(free_port()),
        "LOG_FORMAT": "json", "LOG_LEVEL": "info", "TMPDIR": str(temp),
    }


def test_the_next_start_removes_the_handoff_directory_of_a_killed_supervisor(
    tmp_path: Path,
) -> None:
    """A supervisor killed with SIGKILL cannot remove its directory of workers' sockets;
    the next supervisor to start removes it (they had piled up, one per kill)."""
    temp = tmp_path / "tmp"
    temp.mkdir()
    env = dict(os.environ) | {"PYTHONPATH": str(ROOT)} | _cannot_serve(tmp_path, temp)
    killed = subprocess.Popen(
        [sys.executable, "-m", "app"], cwd=tmp_path, env=env,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while not list(temp.glob(f"{DIRECTORY_PREFIX}*")):  # made before any worker starts
            assert killed.poll() is None and time.monotonic() < deadline, "no directory made"
            time.sleep(0.02)
        killed.send_signal(signal.SIGKILL)
        killed.wait(10)
    finally:
        if killed.poll() is None:
            killed.kill()
            killed.wait(10)
    assert len(list(temp.glob(f"{DIRECTORY_PREFIX}*"))) == 1  # left behind

    done = _run(_cannot_serve(tmp_path, temp), tmp_path, 120)
    assert done.returncode == 1, done.stderr  # its workers could not start either
    assert list(temp.glob(f"{DIRECTORY_PREFIX}*")) == []  # neither its own nor the other
    assert "its supervisor is gone" in done.stderr


def test_only_directories_of_supervisors_no_longer_running_are_removed(tmp_path: Path) -> None:
    ended = subprocess.Popen([sys.executable, "-c", "pass"])
    ended.wait()  # its pid names no process now
    dead = tmp_path / f"{DIRECTORY_PREFIX}{ended.pid}-abc"
    alive = tmp_path / f"{DIRECTORY_PREFIX}{os.getpid()}-def"
    older = tmp_path / f"{DIRECTORY_PREFIX}k2j4_x9q"  # an older version's: no pid in its name
    for folder in (dead, alive, older):
        folder.mkdir(mode=0o700)
        (folder / "node-1").touch()
    not_a_folder = tmp_path / f"{DIRECTORY_PREFIX}{ended.pid}-ghi"
    not_a_folder.touch()
    assert remove_abandoned(tmp_path) == [dead]
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(
        p.name for p in (alive, older, not_a_folder)
    )
    with handoff_directory(tmp_path) as made:  # a start: its own is named after its pid
        assert made.name.startswith(f"{DIRECTORY_PREFIX}{os.getpid()}-")
        assert made.stat().st_mode & 0o777 == 0o700
    assert not made.exists()
