"""A running tournament in the database (docs/tournaments.md, "Play"): its start (the
entrants numbered, house bots entered in the empty seats, round 1 drawn from the seed and
the seed shown), each round's tables and their results, the standings, the next round's
draw, and the end (the prizes paid). Each step is one transaction of its own that checks
the event's state first under its row's lock, so a director that takes over from another
(a node killed mid-step) repeats nothing and skips nothing."""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import select, update
from sqlalchemy.ext.asyncio import AsyncSession

from app.store import ledger
from app.store.models import Tournament, TournamentEntry, TournamentTable
from app.tournaments import money, swiss
from app.tournaments.swiss import Score


class NotEnoughBots(Exception):
    """The house has too few bots free to fill the empty seats."""


@dataclass(frozen=True, slots=True)
class Entrant:
    number: int
    account: int
    bot: bool
    status: str  # playing | forfeited | finished


@dataclass(frozen=True, slots=True)
class Standings:
    """Where the event stands: the Swiss standings after the rounds played so far, the
    final table and its scores once it is drawn, and every entrant by number."""

    ranked: tuple[swiss.Standing, ...]
    final: swiss.Table | None
    final_scores: Mapping[int, Score] | None
    entrants: Mapping[int, Entrant]
    rounds_done: int  # Swiss rounds with every table done
    tables: Sequence[TournamentTable]  # every table of the event, in round and table order


async def locked(session: AsyncSession, tournament_id: int) -> Tournament | None:
    return (await session.execute(
        select(Tournament).where(Tournament.id == tournament_id).with_for_update()
    )).scalar_one_or_none()


async def players_waiting(session: AsyncSession, tournament_id: int) -> list[TournamentEntry]:
    """The players registered, in the order they registered (their entrant numbers)."""
    return list((await session.execute(
        select(TournamentEntry).where(TournamentEntry.tournament_id == tournament_id,
                                      TournamentEntry.status == "registered",
                                      TournamentEntry.bot.is_(False))
        .order_by(TournamentEntry.registered_at, TournamentEntry.id))).scalars().all())


async def begin(session: AsyncSession, tournament_id: int, bots: Sequence[int], now: datetime
                ) -> bool:
    """Start an open event, in one transaction (`session` must have none open): the players
    numbered in the order they registered, house bots (`bots`, free accounts) numbered after
    them in the empty seats, round 1 drawn from the seed and the seed shown. False: it is not
    open (started already, or cancelled). `NotEnoughBots`: nothing changed."""
    async with ledger.writing(session):
        tournament = await locked(session, tournament_id)
        if tournament is None or tournament.status != "open":
            return False
        players = await players_waiting(session, tournament_id)
        empty = tournament.seats - len(players)
        if len(bots) < empty:
            raise NotEnoughBots(f"{empty} seats to fill, {len(bots)} bots free")
        for number, entry in enumerate(players):
            entry.number, entry.status = number, "playing"
        for k, bot in enumerate(bots[:empty]):
            session.add(TournamentEntry(
                tournament_id=tournament_id, account_id=bot, status="playing",
                number=len(players) + k, bot=True, registrations=0, registered_at=now))
        tournament.status, tournament.round, tournament.seed_revealed = "running", 1, True
        _add_tables(session, tournament_id, 1,
                    swiss.first_round(bytes.fromhex(tournament.seed), tournament.seats))
        await session.flush()
    return True


def _add_tables(session: AsyncSession, tournament_id: int, round_number: int,
                tables: Sequence[swiss.Table]) -> None:
    for table in tables:
        session.add(TournamentTable(
            tournament_id=tournament_id, round=round_number, number=table.number,
            table_id=secrets.token_hex(6), seats=json.dumps(list(table.seats)),
            status="waiting"))


async def entrants(session: AsyncSession, tournament_id: int) -> dict[int, Entrant]:
    """Every numbered entrant of the event."""
    rows = (await session.execute(select(TournamentEntry).where(
        TournamentEntry.tournament_id == tournament_id,
        TournamentEntry.number.is_not(None)))).scalars().all()
    return {e.number: Entrant(e.number, e.account_id, e.bot, e.status)
            for e in rows if e.number is not None}


async def tables(session: AsyncSession, tournament_id: int, round_number: int | None = None
                 ) -> list[TournamentTable]:
    """The event's tables (of one round), in round and table order."""
    query = select(TournamentTable).where(TournamentTable.tournament_id == tournament_id)
    if round_number is not None:
        query = query.where(TournamentTable.round == round_number)
    rows = (await session.execute(query)).scalars().all()
    return sorted(rows, key=lambda t: (t.round, t.number))


def seats_of(table: TournamentTable) -> tuple[int, int, int, int]:
    a, b, c, d = json.loads(table.seats)
    return int(a), int(b), int(c), int(d)


def results_of(table: TournamentTable) -> dict[int, Score]:
    """A done table's score per entrant (empty before)."""
    if table.results is None:
        return {}
    return {int(e): Score(int(p), int(w)) for e, (p, w) in json.loads(table.results).items()}


async def mark(session: AsyncSession, tournament_id: int, round_number: int, number: int,
               status: str, results: Mapping[int, Score] | None = None) -> bool:
    """Move a table on (waiting -> playing -> done, with its results), in the caller's
    transaction; False when it was there already (another director first)."""
    before = {"playing": ("waiting",), "done": ("waiting", "playing")}[status]
    values: dict[str, object] = {"status": status}
    if results is not None:
        values["results"] = json.dumps({str(e): [s.points, s.wins] for e, s in results.items()})
    done = await session.execute(
        update(TournamentTable).where(
            TournamentTable.tournament_id == tournament_id, TournamentTable.round == round_number,
            TournamentTable.number == number, TournamentTable.status.in_(before))
        .values(**values))
    return bool(done.rowcount)  # type: ignore[attr-defined]


async def standings(session: AsyncSession, tournament: Tournament) -> Standings:
    """Where the event stands now, from its tables' results."""
    every = await tables(session, tournament.id)
    first = tuple(swiss.Table(t.number, seats_of(t)) for t in every if t.round == 1)
    swiss_rounds = [r for r in range(1, tournament.rounds + 1)
                    if any(t.round == r for t in every)
                    and all(t.status == "done" for t in every if t.round == r)]
    scores = [_round_scores(every, r) for r in swiss_rounds]
    final_round = [t for t in every if t.round == tournament.rounds + 1]
    final = swiss.Table(1, seats_of(final_round[0])) if final_round else None
    final_scores = _round_scores(every, tournament.rounds + 1) if final_round else None
    return Standings(swiss.standings(first, scores) if first else (), final, final_scores,
                     await entrants(session, tournament.id), len(swiss_rounds), every)


def _round_scores(every: Sequence[TournamentTable], round_number: int) -> dict[int, Score]:
    scores: dict[int, Score] = {}
    for table in every:
        if table.round == round_number:
            scores.update(results_of(table))
    return scores


@dataclass(frozen=True, slots=True)
class Advanced:
    """What `advance` did: drew the next round (or the final table), or found the event
    over (`places`: every entrant number in final order); neither while a round plays."""

    drawn: bool = False
    places: tuple[int, ...] | None = None


async def advance(session: AsyncSession, tournament_id: int) -> Advanced:
    """Once every table of the round in play is done, in one transaction: draw the next
    Swiss round, or the final table after the last one; after the last round (or the final
    table), the event's final places for `finish`. Nothing while the round is still being
    played (or the event is not running)."""
    async with ledger.writing(session):
        tournament = await locked(session, tournament_id)
        if tournament is None or tournament.status != "running":
            return Advanced()
        in_play = await tables(session, tournament_id, tournament.round)
        if not in_play or any(t.status != "done" for t in in_play):
            return Advanced()
        now = await standings(session, tournament)
        bots = {e.number for e in now.entrants.values() if e.bot}
        following = tournament.round + 1
        if tournament.round < tournament.rounds:
            _add_tables(session, tournament_id, following, swiss.next_round(now.ranked, following))
        elif tournament.final_table and tournament.round == tournament.rounds:
            _add_tables(session, tournament_id, following,
                        [swiss.final_table(now.ranked, bots, following)])
        else:
            return Advanced(places=swiss.final_places(now.ranked, now.final, now.final_scores))
        tournament.round = following
        await session.flush()
    return Advanced(drawn=True)


async def finish(session: AsyncSession, tournament_id: int, places: Sequence[int]) -> None:
    """Pay the prizes by the final `places` (`money.pay_prizes`: the event finished in the
    same transaction), then mark every entry still playing finished (a forfeit stays
    one). Paid before: nothing moves."""
    async with session.begin():
        tournament = await session.get(Tournament, tournament_id)
        assert tournament is not None
        known = await entrants(session, tournament_id)
    bots = {e.number for e in known.values() if e.bot}
    await money.pay_prizes(session, tournament, places, bots)
    async with session.begin():
        await session.execute(
            update(TournamentEntry).where(TournamentEntry.tournament_id == tournament_id,
                                          TournamentEntry.status == "playing")
            .values(status="finished"))


async def forfeit(session: AsyncSession, tournament_id: int, account: int) -> bool:
    """A player left: the rest of their event is played on 托管 (their entry `forfeited`),
    in the caller's transaction. False: not a player of the event still playing."""
    done = await session.execute(
        update(TournamentEntry).where(
            TournamentEntry.tournament_id == tournament_id, TournamentEntry.account_id == account,
            TournamentEntry.bot.is_(False), TournamentEntry.status == "playing")
        .values(status="forfeited"))
    return bool(done.rowcount)  # type: ignore[attr-defined]
