"""What app/ops/transport.py (and app/ops/serve.py, app/ops/monitoring.py) extend or call in
uvicorn's private classes, and in the websockets connection under them, still has the
shape they were written against: the classes, the methods with their parameters, and the
attributes read. pyproject.toml bounds uvicorn to the versions this passed on; when it fails
on a new uvicorn, its message says what moved and what to do before raising the bound."""

from __future__ import annotations

import ast
import asyncio
import inspect
import textwrap
import tomllib
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

import pytest
import uvicorn
import websockets.exceptions
from fastapi import FastAPI
from packaging.requirements import Requirement
from uvicorn.lifespan.off import LifespanOff
from uvicorn.lifespan.on import LifespanOn
from uvicorn.protocols.http import h11_impl, httptools_impl
from uvicorn.protocols.utils import ClientDisconnected
from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
from uvicorn.server import ServerState
from websockets.exceptions import InvalidState
from websockets.server import ServerProtocol

from app.ops.transport import check_uvicorn_version

ROOT = Path(__file__).resolve().parents[2]
PROTOCOL_INIT = ("config", "server_state", "app_state")  # as transport.adopter builds one
HTTP_METHODS = {
    "__init__": PROTOCOL_INIT,
    "connection_made": ("transport",),
    "connection_lost": ("exc",),
    "data_received": ("data",),
    "on_response_complete": (),
    "pause_writing": (),
    "resume_writing": (),
}
HTTP_ATTRIBUTES = ("transport", "cycle", "scope")
CYCLE_ATTRIBUTES = ("more_body", "response_complete")


@dataclass(frozen=True)
class Shape:
    """What is relied on in one class: its methods' leading parameters (after self) and
    which are coroutines, and the attributes it must assign to `self` somewhere."""

    cls: type
    methods: dict[str, tuple[str, ...]]
    coroutines: frozenset[str] = frozenset()
    attributes: tuple[str, ...] = ()
    relied_on_by: str = "app/ops/transport.py"


SHAPES = [
    Shape(
        httptools_impl.HttpToolsProtocol,
        {**HTTP_METHODS, "handle_websocket_upgrade": ()},
        attributes=(*HTTP_ATTRIBUTES, "url"),
    ),
    Shape(
        h11_impl.H11Protocol,
        {**HTTP_METHODS, "handle_websocket_upgrade": ("event",)},
        attributes=HTTP_ATTRIBUTES,
    ),
    Shape(httptools_impl.RequestResponseCycle, {}, attributes=CYCLE_ATTRIBUTES),
    Shape(h11_impl.RequestResponseCycle, {}, attributes=CYCLE_ATTRIBUTES),
    Shape(
        WebSocketsSansIOProtocol,
        {
            "__init__": PROTOCOL_INIT,
            "connection_made": ("transport",),
            "connection_lost": ("exc",),
            "pause_writing": (),
            "resume_writing": (),
            "handle_ping": (),
            "send": ("message",),
            "run_asgi": (),
        },
        coroutines=frozenset({"send", "run_asgi"}),
        attributes=(
            "transport", "scope", "conn", "writable", "handshake_complete", "disconnected",
            "close_sent",
        ),
    ),
    Shape(ServerProtocol, {"send_text": ("data",), "data_to_send": ()}),
    Shape(
        uvicorn.Server,
        {
            "__init__": ("config",),
            "run": ("sockets",),
            "serve": ("sockets",),
            "startup": ("sockets",),
            "shutdown": ("sockets",),
            "capture_signals": (),
            "handle_exit": ("sig", "frame"),
        },
        coroutines=frozenset({"serve", "startup", "shutdown"}),
        attributes=("config", "server_state", "lifespan", "started", "should_exit"),
        relied_on_by="app/ops/serve.py and app/ops/monitoring.py",
    ),
    Shape(uvicorn.Config, {"load": ()}, attributes=("http_protocol_class", "loaded")),
    Shape(LifespanOn, {}, attributes=("state",), relied_on_by="app/ops/serve.py"),
    Shape(LifespanOff, {}, attributes=("state",), relied_on_by="app/ops/serve.py"),
]


def _assigned(cls: type) -> set[str]:
    """The attributes any method of `cls` or of its bases assigns to `self`."""
    names: set[str] = set()
    for klass in cls.__mro__:
        if klass is object or klass.__module__ in ("asyncio.protocols", "builtins"):
            continue
        try:
            source = textwrap.dedent(inspect.getsource(klass))
        except (OSError, TypeError):
            continue
        for node in ast.walk(ast.parse(source)):
            targets: list[ast.expr] = []
            if isinstance(node, ast.Assign):
                targets = list(node.targets)
            elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
                targets = [node.target]
            for target in targets:
                for part in ast.walk(target):
                    if (
                        isinstance(part, ast.Attribute)
                        and isinstance(part.value, ast.Name)
                        and part.value.id == "self"
                    ):
                        names.add(part.attr)
    return names


def _problems(shape: Shape) -> list[str]:
    """How `shape.cls` differs from what is relied on; empty when it fits."""
    name = shape.cls.__qualname__
    problems = []
    for method, parameters in shape.methods.items():
        function = getattr(shape.cls, method, None)
        if not callable(function):
            problems.append(f"{name}.{method} is gone")
            continue
        names = tuple(inspect.signature(function).parameters)[1:]  # after self
        if names[: len(parameters)] != parameters:
            problems.append(f"{name}.{method} takes {names}, expected {parameters} first")
        elif any(
            p.default is inspect.Parameter.empty and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)
            for p in list(inspect.signature(function).parameters.values())[1 + len(parameters):]
        ):
            problems.append(f"{name}.{method} needs more than {parameters}")
        coroutine = inspect.iscoroutinefunction(function)
        if coroutine != (method in shape.coroutines):
            kind = "a coroutine" if coroutine else "no longer a coroutine"
            problems.append(f"{name}.{method} is {kind}")
    assigned = _assigned(shape.cls)
    problems += [f"{name} never sets self.{a}" for a in shape.attributes if a not in assigned]
    return [f"{problem} (relied on by {shape.relied_on_by})" for problem in problems]


def _advice(problems: list[str]) -> str:
    return (
        f"uvicorn {metadata.version('uvicorn')} / websockets {metadata.version('websockets')} "
        "moved what the server's connection limits extend:\n  " + "\n  ".join(problems) + "\n"
        "Before raising uvicorn's bound in pyproject.toml: read how these classes changed "
        "(uvicorn/protocols/http/*_impl.py, uvicorn/protocols/websockets/"
        "websockets_sansio_impl.py, uvicorn/server.py), adapt app/ops/transport.py (its "
        "docstring lists every hook and attribute it relies on) and this test's SHAPES, then "
        "run tests/ops/test_transport.py and this test on the new version, and only then "
        "raise the bound and regenerate the locks (requirements/compile.sh -P uvicorn)."
    )


def test_uvicorn_still_has_the_shape_the_limits_extend() -> None:
    """Every class, method and attribute in SHAPES; and the exceptions transport.py raises
    and catches (ClientDisconnected, which uvicorn's apps see as a lost client; the
    InvalidState websockets raises for a closed connection)."""
    problems = [problem for shape in SHAPES for problem in _problems(shape)]
    if not issubclass(ClientDisconnected, OSError):
        problems.append("uvicorn.protocols.utils.ClientDisconnected is no longer an OSError")
    if not issubclass(InvalidState, websockets.exceptions.WebSocketException):
        problems.append("websockets.exceptions.InvalidState is no WebSocketException")
    assert not problems, _advice(problems)


async def test_the_websocket_protocol_holds_what_the_limits_read() -> None:
    """A WebSocket protocol as uvicorn builds one: `writable` is the event the limits wait
    on and set-test, `conn` the sans-I/O connection they write frames through."""
    config = uvicorn.Config(FastAPI(), ws="websockets-sansio")
    config.load()
    protocol = WebSocketsSansIOProtocol(
        config=config, server_state=ServerState(), app_state={}
    )
    assert isinstance(protocol.writable, asyncio.Event), _advice(["writable is no asyncio.Event"])
    assert isinstance(protocol.conn, ServerProtocol), _advice(["conn is no ServerProtocol"])


class _Moved(httptools_impl.HttpToolsProtocol):
    """A uvicorn whose HTTP protocol moved: a hook renamed, another given a parameter."""

    on_response_complete = None  # type: ignore[assignment]

    def pause_writing(self, reason: str) -> None:  # type: ignore[override]
        super().pause_writing()


def test_a_moved_hook_or_attribute_is_named_with_what_to_do() -> None:
    """The check can fail: a renamed hook, a changed signature and an attribute no longer
    set are each named, and the message says what to check before raising the bound."""
    shape = Shape(_Moved, HTTP_METHODS, attributes=("transport", "gone_attribute"))
    problems = _problems(shape)
    assert any("on_response_complete is gone" in p for p in problems)
    assert any("pause_writing needs more than ()" in p for p in problems)
    assert any("never sets self.gone_attribute" in p for p in problems)
    advice = _advice(problems)
    assert "tests/ops/test_transport.py" in advice and "pyproject.toml" in advice


def _uvicorn_requirement() -> Requirement:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    (line,) = [line for line in dependencies if Requirement(line).name == "uvicorn"]
    return Requirement(line)


def test_pyproject_bounds_uvicorn_to_the_version_tested_here() -> None:
    """An upper bound, which the installed uvicorn (the one this suite runs on) is within."""
    requirement = _uvicorn_requirement()
    assert any(spec.operator in ("<", "<=", "==", "~=") for spec in requirement.specifier)
    check_uvicorn_version(metadata.version("uvicorn"), [str(requirement)])


@pytest.mark.parametrize("version", ["0.56.0", "1.0.0"])
def test_a_uvicorn_past_the_bound_is_refused_at_start(version: str) -> None:
    """A uvicorn upgraded by hand past the bound: the server refuses to start, saying which
    tests to run before raising the bound."""
    with pytest.raises(RuntimeError, match="tests/ops/test_uvicorn_shape.py") as refused:
        check_uvicorn_version(version, [str(_uvicorn_requirement()), 'pytest>=8; extra == "dev"'])
    assert f"uvicorn {version} is not" in str(refused.value)
