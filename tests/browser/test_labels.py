"""Every stable code the server can answer with has a sentence in both of the client's
languages (app/web/static/js/i18n.js, one table for REST and the table socket): the REST
error codes (app/api/errors.py), the socket's refusals (app/protocol/errors.py) and the
ledger reasons. A code without one would show a generic sentence, or in Chinese an English
fallback. So has every quick chat phrase (快捷语)."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page

from app.api.errors import STATUS
from app.protocol.errors import ERROR_MEANINGS
from app.protocol.vocabulary import CHAT_PHRASES, LEDGER_REASONS

LABELS = """async (keys) => {
  const { setLang, t } = await import("/static/js/i18n.js");
  const { codeText } = await import("/static/js/errors.js");
  const out = {};
  for (const lang of ["zh", "en"]) {
    setLang(lang);
    out[lang] = Object.fromEntries(keys.map((k) => [k, k.startsWith("err_") ? codeText(k.slice(4)) : t(k)]));
  }
  setLang("zh");
  return out;
}"""

HAN = re.compile(r"[\u4e00-\u9fff]")


def test_every_error_code_and_ledger_reason_reads_in_both_languages(client_page: Page) -> None:
    codes = sorted(set(STATUS) | set(ERROR_MEANINGS) | {"network", "unknown"})
    keys = [f"err_{c}" for c in codes] + [f"ledger_{r}" for r in sorted(LEDGER_REASONS)]
    shown = client_page.evaluate(LABELS, keys)
    generic = shown["zh"]["err_unknown"], shown["en"]["err_unknown"]
    for key in keys:
        zh, en = shown["zh"][key], shown["en"][key]
        assert key not in (zh, en), key
        if key != "err_unknown":
            assert zh not in generic and en not in generic, key  # its own sentence
        assert HAN.search(zh) and not HAN.search(en), (key, zh, en)


CHAT = """async () => {
  const { setLang, t } = await import("/static/js/i18n.js");
  const { PHRASES, REACTIONS } = await import("/static/js/faces.js");
  const out = { phrases: PHRASES, reactions: REACTIONS };
  for (const lang of ["zh", "en"]) {
    setLang(lang);
    out[lang] = Object.fromEntries([...PHRASES, ...REACTIONS].map((p) => [p, t(`chat_${p}`)]));
  }
  setLang("zh");
  return out;
}"""


def test_every_quick_chat_phrase_reads_in_both_languages(client_page: Page) -> None:
    """The client offers exactly the server's phrases and reactions (app/protocol/vocabulary.py
    CHAT_PHRASES), each with words in both languages (a reaction's are for the log and
    screen readers; it shows as a picture)."""
    shown = client_page.evaluate(CHAT)
    assert shown["phrases"] + shown["reactions"] == list(CHAT_PHRASES)
    for phrase in CHAT_PHRASES:
        zh, en = shown["zh"][phrase], shown["en"][phrase]
        assert f"chat_{phrase}" not in (zh, en), phrase
        assert HAN.search(zh) and not HAN.search(en), (phrase, zh, en)
        assert zh in CHAT_PHRASES[phrase] or phrase in shown["reactions"], (phrase, zh)


ROOM_MODULES = ["rooms.js", "tableroom.js"]
JS = Path(__file__).resolve().parents[2] / "app" / "web" / "static" / "js"
ROOM_KEY = re.compile(r'"(room_[a-z_]+)"')


def test_every_private_room_label_reads_in_both_languages(client_page: Page) -> None:
    """The private rooms' pages (好友房: the lobby's card, the table's room strip, the vote,
    the scoreboard) have each of their labels in Chinese and in English."""
    keys = sorted({k for name in ROOM_MODULES for k in ROOM_KEY.findall((JS / name).read_text())})
    keys += [f"room_outcome_{o}" for o in ("draw", "escape", "voided")]
    keys += [f"room_status_{s}" for s in ("open", "ended", "dissolved")]
    assert len(keys) > 50
    shown = client_page.evaluate(LABELS, keys)
    for key in keys:
        zh, en = shown["zh"][key], shown["en"][key]
        assert key not in (zh, en), key
        if key not in ("room_bounds", "room_colon"):  # "{min}–{max}", ": "
            assert HAN.search(zh) and not HAN.search(en), (key, zh, en)


EVENT_MODULES = ["events.js", "eventpage.js", "tableevent.js", "table.js"]
EVENT_KEY = re.compile(r'"(ev_[a-z_]+)"')


def test_every_tournament_label_reads_in_both_languages(client_page: Page) -> None:
    """The tournaments' pages (比赛场: the lobby's card, the event's page, the table's strip
    and standings) have each of their labels in Chinese and in English, the status tags and
    the counts of one included."""
    keys = {k for name in EVENT_MODULES for k in EVENT_KEY.findall((JS / name).read_text())}
    keys |= {f"ev_{s}" for s in ("upcoming", "running", "finished", "cancelled")}
    keys |= {f"ev_status_{s}" for s in ("waiting", "playing", "done")}
    keys |= {"ev_rounds_one"}
    assert len(keys) > 50
    shown = client_page.evaluate(LABELS, sorted(keys))
    for key in keys:
        zh, en = shown["zh"][key], shown["en"][key]
        assert key not in (zh, en), key
        assert HAN.search(zh) and not HAN.search(en), (key, zh, en)
