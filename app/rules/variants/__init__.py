"""The rule sets, by name."""

from __future__ import annotations

from app.rules.variants.base import Ruleset
from app.rules.variants.fuzhou import Fuzhou
from app.rules.variants.huzhou import Huzhou
from app.rules.variants.lishui import Lishui
from app.rules.variants.shanghai import Shanghai
from app.rules.variants.wenzhou import Wenzhou

VARIANTS: dict[str, Ruleset] = {
    "lishui": Lishui(),
    "wenzhou": Wenzhou(),
    "huzhou": Huzhou(),
    "fuzhou": Fuzhou(),
    "shanghai": Shanghai(),
}


def get_ruleset(name: str) -> Ruleset:
    try:
        return VARIANTS[name]
    except KeyError:
        raise ValueError(f"unknown variant {name!r}; known: {', '.join(VARIANTS)}") from None
