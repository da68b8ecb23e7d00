"""Generate docs/rules.md for players from the engine itself.

Each variant's section is its module docstring (how to win, how a hand is scored), how the
items of a win combine into its total (`scoring.RULE_TEXTS`), and a worked example from
`app.rules.examples`, played by the engine on a prepared wall, with the engine's score sheet
of the win, so the numbers on the page are the engine's. `tests/rules/test_rulesdoc.py` fails when the page is
stale.

    python -m app.rules.rulesdoc          # rewrite docs/rules.md
"""

from __future__ import annotations

import inspect
import textwrap
from collections.abc import Callable
from pathlib import Path

from app.rules.events import Event, Won
from app.rules.examples import fuzhou as fuzhou_example
from app.rules.examples import huzhou as huzhou_example
from app.rules.examples import lishui as lishui_example
from app.rules.examples import shanghai as shanghai_example
from app.rules.examples import wenzhou as wenzhou_example
from app.rules.scoring import RULE_TEXTS, Payment, ScoreSheet, Term
from app.rules.state import HandState
from app.rules.tiles import chinese_name, format_tiles
from app.rules.variants import fuzhou, huzhou, lishui, shanghai, wenzhou
from app.rules.variants.base import Ruleset

PAGE = Path(__file__).resolve().parents[2] / "docs" / "rules.md"

Example = Callable[[], tuple[str, HandState, list[Event]]]
SECTIONS: list[tuple[str, object, Example]] = [
    ("丽水 Lishui", lishui, lishui_example.example),
    ("温州 Wenzhou", wenzhou, wenzhou_example.example),
    ("湖州 Huzhou", huzhou, huzhou_example.example),
    ("福州 Fuzhou", fuzhou, fuzhou_example.example),
    ("上海 Shanghai", shanghai, shanghai_example.example),
]


def _tiles(tiles: tuple[int, ...] | list[int]) -> str:
    return f"`{format_tiles(tiles)}` ({' '.join(chinese_name(t) for t in sorted(tiles))})"


def _example(description: str, state: HandState, events: list[Event]) -> list[str]:
    lines = [description, ""]
    wild = state.wild
    if wild.wild is not None:
        lines.append(f"- Wild: {_tiles([wild.wild])}" + (
            f", played by {_tiles([wild.substitute])} as its face" if wild.substitute else ""))
    for event in events:
        if isinstance(event, Won):
            how = "self-draw" if event.self_draw else f"on seat {event.from_seat}'s discard"
            specials = ", ".join(event.specials) or "plain win"
            lines.append(f"- Seat {event.seat} wins ({how}) with {_tiles(event.hand)}: "
                         f"{specials}, multiplier {event.multiplier}.")
    settlement = state.settlement
    assert settlement is not None
    for t in settlement.transfers:
        lines.append(f"- Seat {t.payer} pays seat {t.payee} {t.points} ({t.reason}).")
    net = ", ".join(f"seat {s}: {p:+d}" for s, p in enumerate(settlement.net()))
    lines.append(f"- Net points: {net}.")
    for sheet in (state.ruleset.explain(state, w) for w in state.wins):
        lines += ["", *_sheet(sheet)]
    return lines


def _sheet(sheet: ScoreSheet) -> list[str]:
    """A win's score sheet (the `scores` of `hand_ended`) in words."""
    reason = sheet.base_reason
    numbers = ", ".join(
        f"{name} {value}"
        for name, value in (("streak", reason.streak), ("deal count", reason.deal_count),
                            ("level", reason.level), ("seat", reason.seat))
        if value is not None
    )
    lines = [
        f"The score sheet of seat {sheet.seat}'s win:",
        "",
        f"- Base {sheet.base} (`{reason.key}`{': ' + numbers if numbers else ''}).",
    ]
    for item in sheet.items:
        count = f" x{item.count}" if item.count != 1 else ""
        counted = "" if item.counted else ", not counted"
        lines.append(f"- {item.name} (`{item.key}`{count}): {item.value} ({item.kind}{counted}).")
    cap = f", capped at {sheet.cap}" if sheet.cap is not None else ""
    lines.append(f"- Total by `{sheet.rule}`: {sheet.total}{cap}.")
    for payment in sheet.payments:
        lines.append(f"- Seat {payment.payer} pays {_formula(payment)} ({payment.reason}).")
    groups = " ".join(f"{format_tiles(g.tiles)} ({g.shape})" for g in sheet.groups)
    melds = " ".join(f"{format_tiles(m.tiles)} ({m.meld})" for m in sheet.melds)
    winning = format_tiles([sheet.winning_tile]) if sheet.winning_tile is not None else "none"
    lines.append(f"- Hand as read: {groups}" + (f"; melds {melds}" if melds else "")
                 + (f"; flowers {format_tiles(sheet.flowers)}" if sheet.flowers else "")
                 + f"; winning tile {winning}.")
    return lines


def _formula(payment: Payment) -> str:
    """``(base 4 + counter 8) x total 2 = 24``."""
    def term(t: Term) -> str:
        return f"{t.key} {t.value}" + (f" x {t.times}" if t.times != 1 else "")

    text = " + ".join(term(t) for t in payment.terms)
    if payment.factors and len(payment.terms) > 1:
        text = f"({text})"
    text += "".join(f" x {term(f)}" for f in payment.factors)
    cap = f", capped at {payment.cap}" if payment.cap is not None else ""
    return f"{text} = {payment.points}{cap}"


def _wrap(text: str, width: int = 92) -> str:
    return "\n".join(textwrap.wrap(text, width, break_on_hyphens=False))


def render() -> str:
    out = [
        "# The rules, for players",
        "",
        "Generated by `python -m app.rules.rulesdoc` from the rules engine: each worked example",
        "is a hand the engine plays on a prepared wall, with the engine's own settlement and",
        "the score sheet the server sends with the hand's end (`hand_ended.scores`,",
        "docs/protocol.md). Seats are numbered 0-3 in turn order; points become silver at the",
        "table's stake.",
        "",
    ]
    for title, module, run in SECTIONS:
        out += [f"## {title}", "", inspect.cleandoc(module.__doc__ or ""), ""]
        description, state, events = run()
        ruleset = state.ruleset
        assert isinstance(ruleset, Ruleset)  # the hand knows it only as its `HandRules`
        out += ["### How a win's score adds up", "", _wrap(RULE_TEXTS[ruleset.score_rule]), ""]
        out += ["### Worked example", ""]
        out += _example(description, state, events)
        out.append("")
    return "\n".join(out)


if __name__ == "__main__":
    PAGE.write_text(render())
    print(f"wrote {PAGE}")
