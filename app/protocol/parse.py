"""The edge: raw text from a socket in, a client message or an error out (a ``hello`` or
nothing, for the first message), never an exception."""

from __future__ import annotations

import json

from pydantic import ValidationError

from app.protocol.base import MAX_SEQ
from app.protocol.messages import (
    CLIENT_MESSAGE,
    HELLO,
    VERSION,
    ActionMessage,
    ClientMessage,
    ErrorMessage,
    HelloMessage,
    ResumeMessage,
)

MAX_MESSAGE_BYTES = 4096  # the largest client message is an action of about 120 bytes
_MAX_TEXT = 200
_NOT_AN_OBJECT = {"model_type", "model_attributes_type", "dict_type", "union_tag_not_found"}


def error(code: str, message: str, ref_seq: int | None = None) -> ErrorMessage:
    return ErrorMessage(code=code, message=message[:_MAX_TEXT], ref_seq=ref_seq)  # type: ignore[arg-type]


def parse_client(raw: str | bytes) -> ClientMessage | ErrorMessage:
    """Validate one client message. Codes: ``too_large``; ``malformed`` (not UTF-8 JSON, or
    not an object); ``unknown_type`` (the ``type`` is not one this version knows);
    ``validation_error`` (anything else, with the first problem's field and reason)."""
    if isinstance(raw, str):
        try:
            raw = raw.encode()
        except UnicodeEncodeError:  # a lone surrogate
            return error("malformed", "not valid UTF-8 text")
    if len(raw) > MAX_MESSAGE_BYTES:
        return error("too_large", f"a message is at most {MAX_MESSAGE_BYTES} bytes")
    try:
        return CLIENT_MESSAGE.validate_json(raw)
    except ValidationError as exc:
        refused = _error_of(exc)
        seq = None if refused.code == "malformed" else _carried_seq(raw)
        return refused if seq is None else refused.model_copy(update={"ref_seq": seq})


def carried_seq(message: ClientMessage) -> int | None:
    """The seq a valid message carries (an action's `seq`, a resume's `last_seq`)."""
    if isinstance(message, ActionMessage):
        return message.seq
    if isinstance(message, ResumeMessage):
        return message.last_seq
    return None


def _carried_seq(raw: bytes) -> int | None:
    """The seq an invalid message carried, when it is a JSON object with a readable one."""
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict):
        return None
    seq = data.get("last_seq" if data.get("type") == "resume" else "seq")
    if isinstance(seq, int) and not isinstance(seq, bool) and 0 <= seq <= MAX_SEQ:
        return seq
    return None


def hello_version(raw: str | bytes) -> object | None:
    """The `v` of a first message that is a ``hello`` naming a version other than this
    one (a client of another protocol version), else None."""
    if not isinstance(raw, str):
        return None
    try:
        data = json.loads(raw)
    except ValueError:
        return None
    if not isinstance(data, dict) or data.get("type") != "hello" or "v" not in data:
        return None
    v = data["v"]
    return None if v == VERSION and not isinstance(v, bool) else v


def parse_hello(raw: str | bytes) -> HelloMessage | None:
    """The first message of a socket as a ``hello``, or None if it is anything else (a
    binary or non-JSON frame, another type, no version 2, no token)."""
    if not isinstance(raw, str):
        return None
    try:
        return HELLO.validate_json(raw)
    except ValidationError:
        return None


def _error_of(exc: ValidationError) -> ErrorMessage:
    first = exc.errors(include_url=False, include_input=False)[0]
    kind, loc = first["type"], first["loc"]
    if kind == "json_invalid":
        return error("malformed", "not valid JSON")
    if not loc and kind == "union_tag_invalid":
        return error("unknown_type", "unknown message type")
    if not loc and kind in _NOT_AN_OBJECT:
        if kind == "union_tag_not_found":
            return error("validation_error", "type: a message needs a type")
        return error("malformed", "a message is a JSON object")
    where = ".".join(str(part) for part in loc[1:]) or "message"  # loc[0] is the type tag
    return error("validation_error", f"{where}: {first['msg']}")
