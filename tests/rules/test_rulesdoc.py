"""docs/rules.md is generated from the engine and must not drift from it."""

from app.rules.rulesdoc import PAGE, render


def test_the_players_rules_page_is_up_to_date() -> None:
    assert PAGE.read_text() == render(), "run: python -m app.rules.rulesdoc"


def test_the_lishui_example_shows_example_a() -> None:
    page = render()
    assert "Seat 1 pays seat 0 20 (win)." in page
    assert "Net points: seat 0: +60, seat 1: -20, seat 2: -20, seat 3: -20." in page
