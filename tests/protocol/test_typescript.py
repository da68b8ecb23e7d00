"""The client kit's typed messages (clients/js/types/protocol.d.ts) are what the JSON Schema
makes (`python -m app.protocol.typescript`), so a bot typed against them sees every field the
server sends; a vocabulary the client receives stays open to values to come, one it sends is
closed. Runs without Node (the README's python-only test command)."""

from __future__ import annotations

import re
from pathlib import Path

from app.protocol import typescript
from app.protocol.schema import protocol_schema

CHECKED_IN = typescript.TARGET


def test_the_checked_in_declarations_are_current() -> None:
    assert CHECKED_IN.read_text(encoding="utf-8") == typescript.declarations(), (
        "clients/js/types/protocol.d.ts is out of date: run "
        ".venv/bin/python -m app.protocol.typescript"
    )


def test_the_check_command_fails_on_a_stale_file(tmp_path: Path) -> None:
    stale = tmp_path / "protocol.d.ts"
    stale.write_text(typescript.declarations().replace("seq: number;", "seq: string;", 1))
    assert typescript.main(["--check", "--out", str(stale)]) == 1
    assert typescript.main(["--out", str(stale)]) == 0  # written again
    assert typescript.main(["--check", "--out", str(stale)]) == 0


def _block(text: str, name: str) -> str:
    found = re.search(rf"^export interface {name} \{{\n(.*?)^\}}", text, re.DOTALL | re.MULTILINE)
    assert found, name
    return found.group(1)


def test_every_message_and_every_field_is_declared() -> None:
    text = typescript.declarations()
    defs = protocol_schema()["$defs"]
    for name, definition in defs.items():
        if "properties" not in definition:
            assert f"export type {name} = " in text
            continue
        body = _block(text, name)
        for field in definition["properties"]:
            assert re.search(rf"^  {field}\??: ", body, re.MULTILINE), f"{name}.{field}"
    members = re.search(r"^export type ServerMessage = (.*);$", text, re.MULTILINE)
    assert members is not None
    assert "RoomMessage" in members.group(1) and "EventMessage" in members.group(1)


def test_received_vocabularies_are_open_and_sent_ones_closed() -> None:
    text = typescript.declarations()
    error = _block(text, "ErrorMessage")
    code = re.search(r"^  code: (.*);$", error, re.MULTILINE)
    assert code is not None
    assert '"not_your_turn"' in code.group(1) and code.group(1).endswith("(string & {})")
    decide = re.search(r"^  choice: (.*);$", _block(text, "DecideAction"), re.MULTILINE)
    assert decide is not None and "string &" not in decide.group(1)
    # the constant that names a message is required both ways; a defaulted field a client
    # may leave out is optional
    assert re.search(r'^  type: "resume";$', _block(text, "ResumeMessage"), re.MULTILINE)
    assert re.search(r"^  code\?: ", _block(text, "WatchMessage"), re.MULTILINE)
    assert re.search(r"^  seq: number;$", _block(text, "EventMessage"), re.MULTILINE)
