"""docs/rules.md is generated from the engine and must not drift from it."""

from app.rules.rulesdoc import PAGE, render


def test_the_players_rules_page_is_up_to_date() -> None:
    assert PAGE.read_text() == render(), "run: python -m app.rules.rulesdoc"


def test_the_lishui_example_shows_example_a() -> None:
    page = render()
    assert "Seat 1 pays seat 0 20 (win)." in page
    assert "Net points: seat 0: +60, seat 1: -20, seat 2: -20, seat 3: -20." in page


def test_every_variant_says_how_its_items_make_the_total_and_shows_a_score_sheet() -> None:
    page = render()
    assert page.count("### How a win's score adds up") == 5
    for rule in ("**Additive.**", "**Highest.**", "**Multiplied.**", "**Capped**",
                 "**Highest 喇, or 花 multiplied and capped.**"):
        assert rule in page
    assert page.count("The score sheet of seat") == 5
    assert "- Seat 0 pays (base 4 + counter 8) x total 2 = 24 (win)." in page  # Example E
    assert "- Seat 0 pays (base 1 + flower_points 5) x self_draw_double 2 = 12 (win)." in page
