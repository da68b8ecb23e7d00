"""The generated parts of docs/protocol.md: the reference (every message, field and
vocabulary, from the JSON Schema of `app.protocol.schema`) and an example of every event
kind taken from real hands (greedy bots on fixed seeds).

    python -m app.protocol.doc          # rewrite the generated blocks of docs/protocol.md
    python -m app.protocol.doc --check  # exit 1 if they are out of date

Each block sits between ``<!-- BEGIN name -->`` and ``<!-- END name -->`` lines; the text
around them is written by hand. A test keeps the blocks equal to this module's output.
"""

from __future__ import annotations

import json
import re
import sys
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

from app.protocol.events import seat_payload
from app.protocol.schema import CLIENT_MESSAGES, SERVER_MESSAGES, message_names, protocol_schema
from app.rules.actions import Action, Escape
from app.rules.bots import GreedyBot
from app.rules.context import TableContext
from app.rules.events import Event, HandEnded
from app.rules.hand import legal_actions, new_hand, pending_seats, step
from app.rules.variants import VARIANTS, get_ruleset

DOC = Path(__file__).resolve().parents[2] / "docs" / "protocol.md"
VIEWER = 0  # the examples are as seat 0 receives them
SEEDS = range(1, 4001)  # scanned in order until every kind is found: the output is fixed
# nested models, after the messages that hold them
NESTED = (
    "SeatInfo", "SeatView", "SeatState", "MeldView", "WildView", "RiverTileView",
    "TransferPayload", "RevealedMeld", "ScoreSheet", "BaseReason", "ScoreItem", "ScorePayment",
    "PaymentTerm", "TileGroup",
)  # fmt: skip


# --- the reference ---------------------------------------------------------------------

# how a type is named in the tables: an enumeration (by its values) by its vocabulary's
# title, a model (by its $defs name) by its heading
Labels = dict[tuple[str, ...] | str, str]


def reference() -> str:
    """Every message, event kind, action and nested value with its fields, then every
    vocabulary, as Markdown."""
    defs = protocol_schema()["$defs"]
    vocabularies = _vocabularies(defs)
    names: Labels = {tuple(v for v, _ in values): title for title, values in vocabularies}
    names.update({name: _label(name, schema) for name, schema in defs.items()})
    out: list[str] = []
    # a message is headed by its `type` and its schema name: `chat` is both a client's
    # SendChatMessage and the server's ChatSaidMessage
    out.append("### Messages a client sends\n")
    for kind, name in message_names(CLIENT_MESSAGES):
        out += _model(f"`{kind}` ({name})", defs[name], names)
    out.append("### Messages the server sends\n")
    for kind, name in message_names(SERVER_MESSAGES):
        out += _model(f"`{kind}` ({name})", defs[name], names)
    out.append("### Event kinds (`event.kind`)\n")
    for name in _union_members(defs["EventMessage"]["properties"]["event"]):
        out += _model(f"`{_const(defs[name], 'kind')}`", defs[name], names)
    out.append("### Actions (`action.type`)\n")
    for name in _union_members(defs["ActionMessage"]["properties"]["action"]):
        out += _model(f"`{_const(defs[name], 'type')}`", defs[name], names)
    out.append("### Values inside messages\n")
    for name in NESTED:
        out += _model(f"`{name}`", defs[name], names)
    out.append("### Vocabularies\n")
    out.append("Every value a string field may take; a client may branch on them.\n")
    for title, values in vocabularies:
        out.append(f"#### {title}\n")
        out.append("| value | meaning |")
        out.append("| --- | --- |")
        out += [f"| `{value}` | {_cell(meaning)} |" for value, meaning in values]
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _model(title: str, schema: dict[str, Any], names: Labels) -> list[str]:
    lines = [f"#### {title}\n", _flat(schema.get("description", "")) + "\n"]
    fields = [  # a message's `type` and an event's `kind` name it; a `kind` that is a field stays
        (k, v) for k, v in schema.get("properties", {}).items()
        if not (k == "type" or k == "kind" and "const" in v)
    ]
    if not fields:
        return lines
    required = set(schema.get("required", ()))
    lines.append("| field | type | description |")
    lines.append("| --- | --- | --- |")
    for name, prop in fields:
        optional = "" if name in required else " (may be left out)"
        lines.append(f"| `{name}` | {_type(prop, names)}{optional} | {_cell(prop.get('description', ''))} |")
    lines.append("")
    return lines


def _type(prop: dict[str, Any], names: Labels) -> str:
    if "$ref" in prop:
        return names[prop["$ref"].rsplit("/", 1)[1]]
    if "discriminator" in prop:
        key = prop["discriminator"]["propertyName"]
        return f"{'event' if key == 'kind' else 'action'} (by `{key}`)"
    if "anyOf" in prop or "oneOf" in prop:
        options = prop.get("anyOf") or prop["oneOf"]
        return " or ".join(dict.fromkeys(_type(option, names) for option in options))
    if "const" in prop:
        return f"`{json.dumps(prop['const'])}`"
    if "enum" in prop:
        return f"string: {names[tuple(prop['enum'])]}"
    kind = prop.get("type", "any")
    if kind == "array":
        items = prop.get("prefixItems")
        if items:
            return "[" + ", ".join(_type(i, names) for i in items) + "]"
        return f"list of {_type(prop.get('items', {}), names)}"
    if kind == "string" and prop.get("pattern", "").startswith("^[1-9][mps]"):
        return "tile"
    bounds = [f"{k[:3]} {prop[k]}" for k in ("minimum", "maximum") if k in prop]
    return kind + (f" ({', '.join(bounds)})" if bounds else "")


def _label(name: str, schema: dict[str, Any]) -> str:
    properties = schema.get("properties", {})
    if "const" in properties.get("kind", {}):
        return f"`{properties['kind']['const']}` event"
    if "const" in properties.get("type", {}):
        return f"`{properties['type']['const']}` " + ("message" if "v" in properties else "action")
    return f"`{name}`"


def _union_members(prop: dict[str, Any]) -> list[str]:
    return [option["$ref"].rsplit("/", 1)[1] for option in prop["oneOf"]]


def _const(schema: dict[str, Any], field: str) -> str:
    return str(schema["properties"][field]["const"])


def _vocabularies(defs: dict[str, Any]) -> list[tuple[str, list[tuple[str, str]]]]:
    """Each distinct enumeration, named by the first field found to use it; with that
    field's model only where two vocabularies share a field name (`key (ScoreItem)`): a
    vocabulary several models use (`phrase`: a client's chat and the server's) is not
    named after one of them."""
    found: dict[tuple[str, ...], tuple[str, str, list[tuple[str, str]]]] = {}
    for model, schema in defs.items():
        for field, prop in _fields(schema):
            if "enum" in prop and "x-enum-descriptions" in prop:
                key = tuple(prop["enum"])
                if key not in found:
                    pairs = list(zip(prop["enum"], prop["x-enum-descriptions"], strict=True))
                    found[key] = (field, model, pairs)
    fields = Counter(field for field, _, _ in found.values())
    return sorted(
        (field if fields[field] == 1 else f"{field} ({model})", pairs)
        for field, model, pairs in found.values()
    )


def _fields(schema: dict[str, Any]) -> Iterator[tuple[str, dict[str, Any]]]:
    for name, prop in schema.get("properties", {}).items():
        for part in (prop, prop.get("items", {}), *prop.get("anyOf", ())):
            yield name, part
            yield name, part.get("items", {})


def _flat(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


def _cell(text: str) -> str:
    return _flat(text).replace("|", "\\|")


# --- examples from real hands ----------------------------------------------------------


def examples() -> str:
    """One event of each kind as seat 0 receives it (two of `dealt`: its own and another
    seat's; a `won` of each variant), and a score sheet of each variant (a `hand_ended`'s
    `scores` entry), from greedy bots' hands on the first seeds that show them."""
    wanted = set(_ORDER)
    found: dict[str, tuple[str, int, dict[str, Any]]] = {}
    for variant in sorted(VARIANTS):
        for seed in SEEDS:
            escaper = 1 if seed % 7 == 0 else None  # an escape now and then
            for event in _hand(variant, seed, escaper):
                if isinstance(event, HandEnded):  # as a table shows it: stored, at stake 1
                    silver = tuple(map(sum, zip(event.net, event.house_silver, strict=True)))
                    event = replace(event, silver=silver)
                payload = seat_payload(event, VIEWER).model_dump(mode="json")
                for key in _keys(event, variant):
                    if key in wanted and key not in found:
                        found[key] = (variant, seed, payload)
                if f"scores_{variant}" not in found and _explains_items(event):
                    sheet = payload["scores"][0]
                    found[f"scores_{variant}"] = (variant, seed, sheet)
            needed = {f"won_{variant}", f"scores_{variant}", *_COMMON, *_OWN.get(variant, ())}
            if all(k in found for k in needed):
                break
    missing = wanted - set(found)
    if missing:
        raise RuntimeError(f"no example found for {sorted(missing)}")
    out: list[str] = []
    for key in _ORDER:
        variant, seed, payload = found[key]
        out.append(f"{_LABELS.get(key, f'`{key}`')} ({variant}, seed {seed}):\n")
        out.append("```json\n" + json.dumps(payload, ensure_ascii=False) + "\n```\n")
    return "\n".join(out)


# the examples, in the order the doc shows them
_ORDER = (
    "hand_started", "dealt_own", "dealt_other", "wild_turned", "decided", "flowered", "drew",
    "discarded", "melded", "penalized", "gold_robbed", *(f"won_{v}" for v in sorted(VARIANTS)),
    "exhaustive_draw", "escaped", "hand_ended", *(f"scores_{v}" for v in sorted(VARIANTS)),
)  # fmt: skip
_COMMON = {
    "hand_started", "dealt_own", "dealt_other", "drew", "discarded", "melded",
    "exhaustive_draw", "escaped", "hand_ended",
}  # fmt: skip
_OWN = {  # the kinds only some variants have
    "fuzhou": {"wild_turned", "flowered", "gold_robbed"},
    "lishui": {"penalized"},
    "wenzhou": {"decided"},
}
_LABELS = {
    "dealt_own": "`dealt`, the receiver's own",
    "dealt_other": "`dealt`, another seat's",
    **{f"won_{v}": f"`won` in {v}" for v in VARIANTS},
    **{f"scores_{v}": f"A score sheet (`hand_ended.scores[0]`, `ScoreSheet`) in {v}"
       for v in VARIANTS},
}


def _explains_items(event: Event) -> bool:
    """A `hand_ended` whose first win names an item beyond the plain win's."""
    if not isinstance(event, HandEnded) or not event.scores:
        return False
    return any(item.key not in ("plain", "self_drawn", "soft") for item in event.scores[0].items)


def _keys(event: Event, variant: str) -> list[str]:
    if event.kind == "dealt":
        return ["dealt_own" if event.seat == VIEWER else "dealt_other"]  # type: ignore[attr-defined]
    if event.kind == "won":
        return [f"won_{variant}"] if event.specials else []  # type: ignore[attr-defined]
    if event.kind == "drew":
        return ["drew"] if event.seat == VIEWER else []  # type: ignore[attr-defined]
    if event.kind == "melded":
        return ["melded"] if event.meld == "chow" else []  # type: ignore[attr-defined]
    return [event.kind]


def _hand(variant: str, seed: int, escaper: int | None) -> list[Event]:
    """The events of one hand of greedy bots; `escaper` leaves at its first turn."""
    # the seed in 32 bytes, as a server's are: the commitment and the revealed seed look
    # as they do at a table
    state, events = new_hand(get_ruleset(variant), seed.to_bytes(32, "big"), TableContext(dealer=0))
    bot = GreedyBot()
    while state.phase != "ended":
        seat = state.turn if state.phase == "turn" else pending_seats(state)[0]
        if seat == escaper and state.phase == "turn":
            action: Action = Escape(seat)
        else:
            action = bot.choose(state, seat, legal_actions(state, seat))
        state, more = step(state, action)
        events += more
    return events


# --- the doc ---------------------------------------------------------------------------


def blocks() -> dict[str, str]:
    return {"reference": reference(), "examples": examples()}


def render(text: str, generated: dict[str, str]) -> str:
    """`text` with each generated block replaced by its current content."""
    for name, body in generated.items():
        pattern = re.compile(
            rf"(<!-- BEGIN {name} -->\n).*?(<!-- END {name} -->)", flags=re.DOTALL
        )
        match = pattern.search(text)
        if match is None:
            raise ValueError(f"docs/protocol.md has no block {name!r}")
        text = text[: match.start()] + match[1] + body + match[2] + text[match.end():]
    return text


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    text = DOC.read_text(encoding="utf-8")
    new = render(text, blocks())
    if "--check" in args:
        if new != text:
            sys.stderr.write("docs/protocol.md is out of date: python -m app.protocol.doc\n")
            return 1
        return 0
    DOC.write_text(new, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
