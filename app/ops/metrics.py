"""Prometheus metrics of one server process, and the small calls the shell makes to feed them.

The shell's metrics live here; the WebSocket endpoint, the table registry, the actor and the
cluster each call one function per fact (a connection opened, a message in or out, an
action's events handed to the sockets, a hand settled, a table taken over, a lease lost, a
Redis command dropped). None of them imports prometheus_client. What can be read from the
live tables (how many, how deep their inboxes are) is read when `/metrics` is scraped
(`observe_tables`), not counted, and so are the node's readings (app/ops/readings.py: the
build, the database pool, readiness). The HTTP requests are counted by the edge's middleware
(app/ops/observe.py).

Every series an operator's rule or panel reads exists from the start, at 0 (`prefill`): a
rate or an alert over a counter that has never moved still has a series to read.

The action-to-broadcast latency runs from the moment the WebSocket endpoint receives a seat's
action (`ReceivedAction.received`) to the moment the actor has handed the events the action
caused to every seat's connection (`events_published`, at the end of the actor's publish).
The actor runs one message at a time in its own task, so the action in hand is kept in a
context variable of that task (`handling`). Actions the actor refuses publish no event and
are not observed; the time a connection's writer then takes to put the frames on the wire is
not part of it (the load test measures the whole path from the client's side).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable
from contextvars import ContextVar
from functools import cache
from typing import Any, Protocol

from fastapi import APIRouter, Request, Response
from prometheus_client import CONTENT_TYPE_LATEST, REGISTRY, Counter, Gauge, Histogram
from prometheus_client import generate_latest as _generate_latest

from app.ops import readings

__all__ = ["CONTENT_TYPE_LATEST"]

PREFIX = "mahjong"

# Latency buckets in seconds: 0.5 ms to 2.5 s (the target is a p99 under 50 ms).
LATENCY_BUCKETS = (
    0.0005, 0.001, 0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.075,
    0.1, 0.25, 0.5, 1.0, 2.5,
)

CONNECTIONS = Gauge(
    f"{PREFIX}_ws_connections", "Authenticated WebSocket connections open on this node"
)
MESSAGES = Counter(
    f"{PREFIX}_ws_messages",
    "WebSocket messages by direction (in: from clients, out: to clients) and protocol type",
    ["direction", "type"],
)
HANDOFFS = Counter(
    f"{PREFIX}_ws_handoffs",
    "Table connections handed between the processes of this machine to the one owning their "
    "table (way=passed: to another; taken: from another; kept: served here, the owner "
    "being this process, none or out of reach)",
    ["way"],
)
LIVE_TABLES = Gauge(
    f"{PREFIX}_live_tables", "Tables whose actor runs on this node, by status", ["status"]
)
INBOX_DEPTH = Gauge(
    f"{PREFIX}_inbox_depth",
    "Messages waiting in the tables' inboxes at scrape time: the sum over tables, and the "
    "deepest one",
    ["stat"],
)
# a hand's ending, stored or shown: a quarter of a second apart up to 3 s (the aim is
# under 1-1.5 s at p99 in a burst), then coarser
ENDING_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5,
                  2.75, 3.0, 4.0, 5.0, 7.5, 10.0, 30.0)
ACTION_LATENCY = Histogram(
    f"{PREFIX}_action_broadcast_seconds",
    "From receiving a seat's action on the socket to handing its events to every seat's "
    "connection",
    buckets=LATENCY_BUCKETS,
)
SETTLE_LATENCY = Histogram(
    f"{PREFIX}_settle_seconds",
    "From a hand's end to its record and silver being stored (the table shows the result "
    "then): the wait for its batch to be stored (STORE_BATCH, STORE_CONCURRENCY) and the "
    "transaction",
    buckets=ENDING_BUCKETS,
)
RESULT_SHOWN = Histogram(
    f"{PREFIX}_result_shown_seconds",
    "From a hand's end to its result being shown at the table (stored, then its turn in "
    "the endings' lane): what a player waits for the settlement",
    buckets=ENDING_BUCKETS,
)
SETTLE_BATCH_HANDS = Histogram(
    f"{PREFIX}_settle_batch_hands",
    "Ended hands stored together in one batch (STORE_BATCH at most)",
    buckets=(1, 2, 4, 8, 16, 32, 64, 128, 256, 512),
)
SETTLE_BATCH_SECONDS = Histogram(
    f"{PREFIX}_settle_batch_seconds",
    "A batch of ended hands: its wait for the event loop to have room, and its store (the "
    "rows made up and the transaction)",
    ["step"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0),
)
SETTLE_WAITING = Gauge(
    f"{PREFIX}_settle_waiting", "Ended hands waiting for a turn to be stored on this node"
)
SETTLEMENTS = Counter(
    f"{PREFIX}_settlements",
    "Hands settled through the ledger, by the hand's outcome (win, draw, escape), and "
    "settlements that failed (outcome=failed)",
    ["outcome"],
)

LOOP_LAG = Gauge(
    f"{PREFIX}_loop_lag_seconds",
    "How late a timer of this process's event loop fires, on average over the shedding window "
    "(app/ops/pressure.py)",
)
PROCESS_CPU = Gauge(
    f"{PREFIX}_process_cpu_share", "Share of one core this process used over the shedding window"
)
SETTLE_OLDEST = Gauge(
    f"{PREFIX}_settle_oldest_seconds",
    "How long the oldest ended hand waiting to be stored on this process has waited",
)
BUSY = Gauge(
    f"{PREFIX}_node_busy",
    "1 while this process sheds new work (no new tables, rooms, sits or quick-match groups: "
    "503 busy), else 0",
)
BUSY_SPELLS = Counter(f"{PREFIX}_busy_spells", "Times this process began to shed new work")
SHED = Counter(
    f"{PREFIX}_shed_requests",
    "Requests for new work refused while busy, by what they asked (table, room, sit, "
    "quick_match)",
    ["what"],
)

GC_PAUSE = Histogram(
    f"{PREFIX}_gc_pause_seconds",
    "Collections of the cyclic garbage collector, each a pause of the event loop, by the "
    "oldest generation collected (2: the whole heap; app/ops/memory.py)",
    ["generation"],
    buckets=(0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5),
)

GC_COLLECTED = Counter(
    f"{PREFIX}_gc_collected_objects",
    "Unreachable objects the cyclic garbage collector freed, by the oldest generation "
    "collected (what a whole-heap collection, the longest pause, is for)",
    ["generation"],
)

REPLAYS = Counter(
    f"{PREFIX}_replays",
    "Hand replays asked on this node, by answer: kept (from the cache), joined (a build "
    "already running), built, rate_limited (the account's builds are used up), busy (too "
    "many builds in hand)",
    ["answer"],
)

TAKEOVERS = Counter(
    f"{PREFIX}_table_takeovers",
    "Tables this node took over from their journal, their owner gone (its lease lapsed)",
)
LEASES_LOST = Counter(
    f"{PREFIX}_leases_lost",
    "Table leases this node lost to another node (a renewal refused, or a journal write the "
    "fence refused): the table stops here at once",
)
WRITER_DROPPED = Counter(
    f"{PREFIX}_writer_dropped_commands",
    "Redis commands the cluster's ordered writer gave up on after its retries, Redis "
    "unreachable (journal writes, routed messages, presence)",
)
REDIS_ERRORS = Counter(
    f"{PREFIX}_redis_errors",
    "Exchanges with Redis that failed (refused, lost or timed out), by client: main (the "
    "node's pool: journal, routing, calls, leases), leases (the renewal thread), bus (the "
    "node's subscription), limits (the request limits' counters)",
    ["client"],
)
REDIS_CLIENTS = ("main", "leases", "bus", "limits")
LOGIN_FAILURES = Counter(
    f"{PREFIX}_login_failures",
    "Logins refused, by reason: bad_credentials (an unknown username or a wrong password), "
    "banned",
    ["reason"],
)
LOGIN_REASONS = ("bad_credentials", "banned")
OUTCOMES = ("win", "draw", "escape", "failed")  # a settlement's (`settled`)

# a house bot's choice: tens of microseconds for the greedy bot, more for the expert's
# look at the other seats' discards (time.perf_counter around its `choose`)
BOT_DECISION_BUCKETS = (0.00002, 0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005,
                        0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
BOT_DECISION = Histogram(
    f"{PREFIX}_bot_decision_seconds",
    "How long a house bot took to choose its action on the table's event loop (the bot's "
    "own choice, not its pace), by the table's bot level (beginner, standard, expert)",
    ["level"],
    buckets=BOT_DECISION_BUCKETS,
)
BOT_LEVELS = ("beginner", "standard", "expert")  # app/tables/levels.py


# When the action the actor of the current task is handling arrived (`time.perf_counter()`;
# None: a message of another kind, or one not stamped).
_handling: ContextVar[float | None] = ContextVar("mahjong_handling", default=None)


# --- the WebSocket endpoint -------------------------------------------------------------------


def connection_opened() -> None:
    CONNECTIONS.inc()


def connection_closed() -> None:
    CONNECTIONS.dec()


def handoff(way: str) -> None:
    """A table connection that named its table: `passed`, `taken` or `kept`."""
    HANDOFFS.labels(way).inc()


@cache
def _messages(direction: str, kind: str) -> Counter:
    """The labelled counter (looked up once: `labels` costs ~8 us, called per frame)."""
    return MESSAGES.labels(direction, kind)


def message_in(message: object) -> None:
    """One frame from a client, by its type (`invalid`: refused by the parser)."""
    kind = getattr(message, "type", "invalid")
    _messages("in", "invalid" if kind == "error" else kind).inc()


def message_out(message: object) -> None:
    """One message written to a client, by its type."""
    _messages("out", getattr(message, "type", "close")).inc()


# --- the replays ------------------------------------------------------------------------------


def replay_answered(answer: str) -> None:
    """A replay request's answer (app/api/replay_cache.py): `REPLAYS`."""
    REPLAYS.labels(answer).inc()


# --- the table actor --------------------------------------------------------------------------


def handling(message: object) -> None:
    """The actor starts on `message` (remembered only when it is an action stamped with
    when its frame arrived: its `received`)."""
    received = getattr(message, "received", None)
    _handling.set(received if received else None)


@cache
def _bot_decision(level: str) -> Histogram:
    """The level's histogram (looked up once: called per decision of every house bot)."""
    return BOT_DECISION.labels(level)


def bot_decided(level: str, seconds: float) -> None:
    """A house bot of a table of `level` chose its action in `seconds`."""
    _bot_decision(level).observe(seconds)


def events_published() -> None:
    """The actor has handed a batch of events to every seat: the first batch after a
    stamped action ends that action's latency."""
    received = _handling.get()
    if received is not None:
        _handling.set(None)
        ACTION_LATENCY.observe(time.perf_counter() - received)


# --- the registry -----------------------------------------------------------------------------


def settle_queued(waiting: int) -> None:
    """How many ended hands wait for their turn to be stored now."""
    SETTLE_WAITING.set(waiting)


def hand_stored(seconds: float) -> None:
    """A hand's record and silver are stored, `seconds` after it ended."""
    SETTLE_LATENCY.observe(seconds)


def result_shown(seconds: float) -> None:
    """A hand's stored result is shown at its table, `seconds` after the hand ended."""
    RESULT_SHOWN.observe(seconds)


def settle_batch(hands: int, room_wait: float, store: float) -> None:
    """A batch of `hands` ended hands stored: how long it waited for the event loop to
    have room, and how long its store took."""
    SETTLE_BATCH_HANDS.observe(hands)
    SETTLE_BATCH_SECONDS.labels("room").observe(room_wait)
    SETTLE_BATCH_SECONDS.labels("store").observe(store)


def settled(outcome: str | None) -> None:
    """A hand's silver moved through the ledger (`failed`: the settlement raised)."""
    SETTLEMENTS.labels(outcome or "unknown").inc()


def pressure(lag: float, cpu: float, settle_age: float, busy: bool, *, became_busy: bool) -> None:
    """The shedding sampler's reading (app/ops/pressure.py)."""
    LOOP_LAG.set(lag)
    PROCESS_CPU.set(cpu)
    SETTLE_OLDEST.set(settle_age)
    BUSY.set(1 if busy else 0)
    if became_busy:
        BUSY_SPELLS.inc()


def gc_pause(generation: int, seconds: float, collected: int) -> None:
    GC_PAUSE.labels(str(generation)).observe(seconds)
    GC_COLLECTED.labels(str(generation)).inc(collected)


def shed(what: str) -> None:
    """A request for new work refused because this process is busy."""
    SHED.labels(what).inc()


# --- the cluster and the accounts -------------------------------------------------------------


def table_taken_over() -> None:
    """This node took a table over from its journal (app/cluster/ownership.py)."""
    TAKEOVERS.inc()


def lease_lost() -> None:
    """Another node holds a table this node served: it stops here."""
    LEASES_LOST.inc()


def writer_dropped(commands: int) -> None:
    """The cluster's writer gave `commands` up, Redis unreachable after its retries."""
    WRITER_DROPPED.inc(commands)


def redis_error(client: str) -> None:
    """An exchange with Redis failed: `client` is one of `REDIS_CLIENTS`."""
    REDIS_ERRORS.labels(client).inc()


def login_failed(reason: str) -> None:
    """A login refused: `reason` is one of `LOGIN_REASONS`."""
    LOGIN_FAILURES.labels(reason).inc()


def prefill() -> None:
    """Make the labelled series an operator's rules and panels read, at 0."""
    for outcome in OUTCOMES:
        SETTLEMENTS.labels(outcome)
    for client in REDIS_CLIENTS:
        REDIS_ERRORS.labels(client)
    for reason in LOGIN_REASONS:
        LOGIN_FAILURES.labels(reason)
    for what in ("table", "room", "sit", "quick_match"):
        SHED.labels(what)
    for level in BOT_LEVELS:
        _bot_decision(level)


prefill()

class _Actor(Protocol):
    @property
    def inbox(self) -> asyncio.Queue[Any]: ...


class _LiveTable(Protocol):
    """What `observe_tables` reads of a live table (`LiveTable` has it)."""

    @property
    def status(self) -> str: ...

    @property
    def table(self) -> _Actor: ...


class _Registry(Protocol):
    def all(self) -> Iterable[_LiveTable]: ...


def observe_tables(tables: Iterable[_LiveTable]) -> None:
    """Set the gauges read from the live tables (called when /metrics is scraped)."""
    counts = {"waiting": 0, "playing": 0}
    total = deepest = 0
    for live in tables:
        counts[live.status] = counts.get(live.status, 0) + 1
        depth = live.table.inbox.qsize()
        total += depth
        deepest = max(deepest, depth)
    for status, count in counts.items():
        LIVE_TABLES.labels(status).set(count)
    INBOX_DEPTH.labels("sum").set(total)
    INBOX_DEPTH.labels("max").set(deepest)


def exposition() -> bytes:
    """The text exposition of every metric of this process (and the process collectors)."""
    return _generate_latest(REGISTRY)


# --- the endpoint -----------------------------------------------------------------------------

router = APIRouter(tags=["ops"])


@router.get("/metrics", response_class=Response, responses={200: {"content": {"text/plain": {}}}})
async def metrics(request: Request) -> Response:
    """Prometheus metrics of this node (text exposition format). Meant for the monitoring
    network only: keep it off the public proxy. (On the event loop, not in a worker thread:
    the live tables are read where they change.)"""
    return await scrape(request.app.state)


async def scrape(state: Any) -> Response:
    """The answer to a scrape of the app whose `state` is given: the live tables' gauges and
    the node's readings taken now, then every metric."""
    tables: _Registry | None = getattr(state, "tables", None)
    observe_tables(tables.all() if tables is not None else ())
    await readings.read(state)
    return Response(exposition(), media_type=CONTENT_TYPE_LATEST)
