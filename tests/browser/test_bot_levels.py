"""The house bots' level in the browser (issue 39): the create-table form offers it (普通
chosen), and a bot's seat plate shows the table's level, in Chinese and in English."""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page

from tests.browser.conftest import Server
from tests.browser.ui import register, unfold

DESKTOP = {"width": 1366, "height": 900}


def _levels_on_plates(page: Page) -> list[str]:
    return [page.inner_text(f"#plate-{seat} .badge.bot-level") for seat in (1, 2, 3)]


def test_a_table_of_expert_bots_says_so_on_each_bots_plate(
    context_for: Callable[..., Page], server: Server
) -> None:
    page = context_for(DESKTOP)
    register(page, server.base, "level_ann")
    unfold(page, "tables")
    chosen = page.locator("#create-bot-level")
    assert chosen.input_value() == "standard"  # nobody chose: the house's usual bot
    assert [o.strip() for o in chosen.locator("option").all_inner_texts()] == ["新手", "普通", "高手"]
    page.select_option("#create-bot-level", "expert")
    assert "防守" in page.inner_text("#create-bot-level-hint")
    page.click("#create-submit")
    page.wait_for_selector("#table-view")
    page.click("#fill-bots")
    page.wait_for_selector("#plate-3 .badge.bot-level")
    assert _levels_on_plates(page) == ["高手"] * 3
    assert page.query_selector("#plate-0 .badge.bot-level") is None  # the player's own seat
    page.click("#lang")  # English relabels the plates in place
    page.wait_for_selector("html[lang=en]")
    assert _levels_on_plates(page) == ["Expert"] * 3
    # the lobby's list tells another player who plays the table's bots before sitting there
    other = context_for(DESKTOP, locale="en-US")
    register(other, server.base, "level_cy")
    unfold(other, "tables")
    needs = other.locator(".table-item .table-needs").first
    needs.wait_for()
    assert "bots: Expert" in needs.inner_text()


def test_a_table_opened_without_choosing_shows_standard_bots(
    context_for: Callable[..., Page], server: Server
) -> None:
    page = context_for({"width": 390, "height": 844}, locale="en-US")
    register(page, server.base, "level_bob")
    page.wait_for_selector("html[lang=en]")
    unfold(page, "tables")
    assert page.locator("#create-bot-level option:checked").inner_text() == "Standard"
    page.click("#create-submit")
    page.wait_for_selector("#table-view")
    page.click("#fill-bots")
    page.wait_for_selector("#plate-3 .badge.bot-level")
    assert _levels_on_plates(page) == ["Standard"] * 3
    assert page.locator("#plate-1 .badge.bot-level").is_visible()  # on a phone too


def test_a_rooms_owner_picks_the_bots_level_and_the_rooms_rules_name_it(
    context_for: Callable[..., Page], server: Server
) -> None:
    page = context_for(DESKTOP)
    register(page, server.base, "level_dee")
    page.wait_for_selector("#room-create-form #room-opts .room-opt", state="attached")
    unfold(page, "rooms")
    assert page.locator("#room-bot-level").input_value() == "standard"
    page.select_option("#room-bot-level", "beginner")
    assert "不吃牌" in page.inner_text("#room-bot-level-hint")
    page.fill("#room-length", "2")
    page.click("#room-create")
    page.wait_for_selector("#room-code-copy")
    page.click("#room-rules-toggle")
    assert page.inner_text(".room-bot-level") == "新手"
    page.click("#lang")
    page.wait_for_selector("html[lang=en]")
    assert page.inner_text(".room-bot-level") == "Beginner"


def test_quick_match_names_the_bots_level_the_operator_set(
    context_for: Callable[..., Page], server: Server
) -> None:
    page = context_for({"width": 390, "height": 844})
    register(page, server.base, "level_boss")
    server.make_admin("level_boss")
    advanced = {"name_zh": "高级场", "name_en": "Advanced", "stake": 100, "min_balance": 20000,
                "position": 2, "enabled": True, "bot_level": "expert"}
    with server.http() as http:
        put = http.put("/admin/match-levels/advanced", json=advanced,
                       headers=server.token("level_boss"))
        assert put.status_code == 200, put.text
    page.reload()
    bots = page.locator(".quick-level[data-level='advanced'] .quick-bots")
    bots.wait_for()
    assert "机器人：高手" in bots.inner_text()
    assert "机器人：普通" in page.inner_text(".quick-level[data-level='beginner'] .quick-bots")
