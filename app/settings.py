"""Settings, from the environment or a `.env` file (names as an operator sets them:
DATABASE_URL, REDIS_URL, JWT_SECRET ...)."""

from __future__ import annotations

import json
import secrets
from functools import lru_cache
from typing import Annotated, Any, Literal

from pydantic import AfterValidator, BeforeValidator, Field
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

# the garbage collector's defaults (app/ops/memory.py reads them from here)
GC_THRESHOLDS = (50_000, 10, 10)
GC_EVERY = 0.1  # seconds between young collections
GC_FULL_EVERY = 60.0  # seconds between looks at whether to collect the whole heap
GC_FULL_GROWTH = 0.5  # ... which is collected when the process grew by half since the last


MIN_SECRET_LENGTH = 32
MAX_BOT_DELAY_MS = 10_000


def _delay_range(value: Any) -> Any:
    """BOT_DELAY_MS as an operator writes it: "600,1400" (a range), "1000" (always that),
    "0" (at once); a pair as it is."""
    if isinstance(value, int | float):
        return (value, value)
    if isinstance(value, str):
        parts = [part.strip() for part in value.split(",")]
        if len(parts) == 1:
            parts *= 2
        return tuple(parts)
    return value


def _ordered(value: tuple[int, int]) -> tuple[int, int]:
    low, high = value
    if not 0 <= low <= high <= MAX_BOT_DELAY_MS:
        raise ValueError(f"a delay range min,max with 0 <= min <= max <= {MAX_BOT_DELAY_MS} ms")
    return value


DelayRange = Annotated[
    tuple[int, int], NoDecode, BeforeValidator(_delay_range), AfterValidator(_ordered)
]


def _secret_list(value: Any) -> Any:
    """JWT_OLD_SECRETS as an operator writes it: secrets separated by commas, or a JSON list
    (for a secret that holds a comma); a list as it is."""
    if isinstance(value, str):
        if value.lstrip().startswith("["):
            return json.loads(value)
        return [part.strip() for part in value.split(",") if part.strip()]
    return value


def _long_enough(values: list[str]) -> list[str]:
    for value in values:
        if len(value) < MIN_SECRET_LENGTH:
            raise ValueError(f"every old secret has at least {MIN_SECRET_LENGTH} characters")
    return values


SecretList = Annotated[
    list[str], NoDecode, BeforeValidator(_secret_list), AfterValidator(_long_enough)
]


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_file=".env", extra="ignore")

    host: str = "127.0.0.1"
    port: int = 8000
    log_level: str = "info"
    log_format: Literal["json", "text"] = "json"  # json: one object per line (app/ops/logging.py)
    # SQLite (a file next to the app) by default; PostgreSQL when it says postgresql://
    database_url: str = "sqlite:///./mahjong.db"
    redis_url: str | None = None
    # the cluster (only with REDIS_URL, see docs/cluster.md): this node's id (random by
    # default), the key prefix, the table lease's TTL, the presence TTL and how often a
    # node looks for tables whose owner died
    node_id: str = Field(
        default_factory=lambda: secrets.token_hex(4), min_length=1, max_length=64,
        pattern=r"^[A-Za-z0-9_.:-]+$",
    )
    redis_prefix: str = "mj:"
    lease_ms: int = Field(default=3000, ge=300)
    # a node renews its leases from a thread while its event loop shows progress within
    # this many seconds (app/cluster/keeper.py): a busy node keeps its tables, a stuck one
    # loses them
    lease_stall_seconds: float = Field(default=30.0, gt=0)
    presence_ttl_ms: int = Field(default=30000, ge=1000)
    watch_interval_ms: int = Field(default=500, ge=50)
    # the garbage collector's thresholds for `python -m app` (app/ops/memory.py); the first
    # is how many allocations start a young collection (CPython's default is 700)
    gc_thresholds: tuple[int, int, int] = GC_THRESHOLDS
    # the two younger generations are collected every `gc_every` seconds; every
    # `gc_full_every` the whole heap, if the process grew by `gc_full_growth` since the last
    # such collection (0: every time; app/ops/memory.py; `gc_full_every` 0: CPython's own
    # thresholds alone). A whole-heap collection stops the process's event loop about a
    # second per 5,000 sockets
    gc_every: float = Field(default=GC_EVERY, ge=0)
    gc_full_every: float = Field(default=GC_FULL_EVERY, ge=0)
    gc_full_growth: float = Field(default=GC_FULL_GROWTH, ge=0)
    # seconds to the first one (None: a random half to all of `gc_full_every`); with
    # PROCESSES > 1 worker i of n gets i/n of it, so that no two stop together
    gc_full_first: float | None = Field(default=None, ge=0)
    migrate_on_start: bool = True  # `python -m app` upgrades the database to head first
    # `python -m app` runs this many server processes on this machine, all serving the one
    # port (app/ops/supervisor.py; docs/cluster.md, "Several processes on one machine"):
    # each is a node of the cluster named NODE_ID-1, NODE_ID-2 ..., so more than 1 needs
    # REDIS_URL, JWT_SECRET and a database they all share (PostgreSQL). 1: one process, no
    # supervisor
    processes: int = Field(default=1, ge=1, le=64)

    # every limit per client address below counts a client by one key (app/ops/addresses.py:
    # an IPv4 address, an IPv6 one's /64)
    # the edge (app/ops/serve.py, docs/architecture.md "The edge"): the peers whose
    # X-Forwarded-For is believed (uvicorn's forwarded_allow_ips: a comma-separated list
    # of addresses or networks, "*" for any), the WebSocket keepalive (a ping every
    # interval, closed without a pong within the timeout) and how long an idle
    # keep-alive HTTP connection is kept
    forwarded_allow_ips: str = "127.0.0.1,::1"
    ws_ping_interval: float = Field(default=20.0, gt=0)
    ws_ping_timeout: float = Field(default=20.0, gt=0)
    # the browser client's own heartbeat (GET /tables/{id}/players gives it to the table
    # page; docs/client.md "Never silently frozen"): a ping every ws_client_ping_seconds, the
    # socket taken for dead when the server is not heard within ws_client_pong_seconds of a
    # ping, and the banner says so
    ws_client_ping_seconds: float = Field(default=20.0, gt=0, le=300)
    ws_client_pong_seconds: float = Field(default=10.0, gt=0, le=120)
    # the table WebSocket /ws (app/api/ws.py, docs/protocol.md "Connecting"): seconds a new
    # socket has to send its hello; the origins, besides the server's own, whose pages may
    # open it (as a browser sends Origin, scheme://host[:port]; in the environment a JSON
    # list: WS_ALLOWED_ORIGINS='["https://mahjong.example"]'); sockets open at once per
    # client address on this node; and a client that does not read what it is sent is
    # closed (4008) when more than ws_send_queue_bytes wait for it or one message has waited
    # ws_send_timeout seconds for its connection to take it
    ws_hello_seconds: float = Field(default=5.0, gt=0)
    ws_allowed_origins: list[str] = []
    ws_connections_per_address: int = Field(default=32, ge=1)
    ws_send_queue_bytes: int = Field(default=256 * 1024, ge=4096)
    ws_send_timeout: float = Field(default=15.0, gt=0)
    keep_alive_seconds: int = Field(default=5, ge=1, le=300)
    # the connections' own limits (app/ops/transport.py): a connection that has not sent a
    # whole request (head and body) this long after opening or after its last response is
    # closed (WebSockets are not, once upgraded); one whose peer reads nothing of what it is
    # sent for this long is dropped (HTTP and WebSocket); a peer address other than a trusted
    # proxy (forwarded_allow_ips) holds at most this many open connections, more are closed
    # at once
    request_timeout_seconds: float = Field(default=10.0, gt=0, le=300)
    write_stall_seconds: float = Field(default=30.0, gt=0, le=600)
    max_connections_per_peer: int = Field(default=256, ge=1)
    # the API docs (/docs, /redoc, /openapi.json) on the public port; the container image
    # turns them off
    api_docs: bool = True
    # /metrics: on the public port when METRICS_PORT is unset; otherwise only on this
    # second listener of the process (app/ops/monitoring.py; the container image uses 9100)
    metrics_port: int | None = Field(default=None, ge=1, le=65535)
    metrics_host: str = "127.0.0.1"
    # request limits (app/api/throttle.py, docs/architecture.md "Request limits"), each per
    # sliding window of rate_window_seconds: REST requests per client address (every request
    # but the probes) and per account (a request with a valid access token); a player's
    # browser makes 20-30 a minute (the lobby polls every 5 s, a page load is ~16 files), a
    # flood from one address is cut to 10 a second; and new /ws connections per address and
    # per account (the web client reconnects with a growing pause: a few a minute at worst)
    rate_window_seconds: int = Field(default=60, ge=1, le=3600)
    requests_per_address: int = Field(default=600, ge=1)
    requests_per_account: int = Field(default=300, ge=1)
    ws_connects_per_address: int = Field(default=60, ge=1)
    ws_connects_per_account: int = Field(default=20, ge=1)
    # the largest request body read, in bytes (app/api/body_limit.py); larger: 413
    # too_large. The largest real one, an admin test-mode table, is under 2 KB
    max_body_bytes: int = Field(default=16384, ge=1024)

    # the token signing secret; empty: see app/ops/secret.py (a kept random one for a single
    # process, a refusal to start with REDIS_URL or REQUIRE_JWT_SECRET)
    jwt_secret: str = Field(default="", pattern=rf"^(|.{{{MIN_SECRET_LENGTH},}})$")
    # secrets that check tokens but never sign one (a rotation, docs/operating.md): the
    # previous JWT_SECRET until the last token it signed has expired (REFRESH_TOKEN_DAYS),
    # or the next one while a cluster's nodes learn it; comma-separated or a JSON list. A
    # token names its key by an id derived from the secret (app/ops/secret.py `key_id`)
    jwt_old_secrets: SecretList = []
    jwt_secret_file: str | None = None
    require_jwt_secret: bool = False
    access_token_minutes: int = 15
    refresh_token_days: int = 30

    signup_grant: int = 10000  # RULES.md 7: a new account starts with 10000 silver
    # registrations (app/api/signups.py; docs/architecture.md "The edge", "Registrations and
    # the signup grant"), per client address key (an IPv4 address, an IPv6 /64) an hour and
    # a day, and per IPv6 /48 a day (a subscriber may hold 65,536 /64s); over a bar: 429
    register_per_address_hour: int = Field(default=3, ge=1, le=1_000_000)
    register_per_address_day: int = Field(default=10, ge=1, le=1_000_000)
    register_per_network_day: int = Field(default=30, ge=1, le=1_000_000)
    # the signup grant is paid to at most this many registrations a day per address key and
    # per IPv6 /48; the others make their account without silver, so that silver cannot be
    # farmed by making accounts (0: no signup grant at all)
    signup_grants_per_address_day: int = Field(default=3, ge=0, le=1_000_000)
    signup_grants_per_network_day: int = Field(default=10, ge=0, le=1_000_000)
    # house bots (docs/architecture.md, "House bots and the silver supply"): at most this
    # many bot accounts exist; each is funded from the house account when it is seated
    bot_pool_size: int = Field(default=200, ge=3, le=100_000)
    # the house account's opening float, granted once per database by `python -m app` (a
    # documented grant, ledger reason house_float); 0: operators fund it by adjustments
    house_float: int = Field(default=1_000_000, ge=0, le=10**12)
    # how long the server takes when it plays a seat itself (a house bot, 托管), so that
    # people can follow a hand: milliseconds "min,max", drawn per decision (app/tables/
    # timers.py BotPace); "0": at once (the tests and load runs)
    bot_delay_ms: DelayRange = (600, 1400)
    # ended hands are stored in batches (most of a batch in one transaction): at most
    # `store_batch` hands a batch and `store_concurrency` batches at once per process. The
    # rest wait their turn, so that a burst of hand endings does not queue all its database
    # work ahead of every other table's actions on the event loop (docs/architecture.md,
    # "Settlement bursts"; bench/bench_settle.py, bench/load.md)
    store_concurrency: int = Field(default=2, ge=1, le=1000)
    store_batch: int = Field(default=32, ge=1, le=1000)
    # the tables whose hand's ending (an escape, the stored result shown, the next deal)
    # runs in one pass of the event loop; the rest wait for the next passes, so that
    # hundreds of hands ending at once do not hold every other table's turn behind them
    # (app/tables/lane.py); 0: no limit
    endings_per_pass: int = Field(default=2, ge=0, le=1000)
    # overload: a process sheds new work (no new tables, rooms, sits or quick-match groups:
    # 503 busy with Retry-After) while its event loop's timers fire on average more than
    # `shed_lag` seconds late, or an ended hand has waited more than `shed_settle_age`
    # seconds to be stored, or (when set) it used more than `shed_cpu` of a core, over the
    # last `shed_window` seconds; it takes new work again once every signal has stayed
    # under half its limit for `shed_calm` seconds (app/ops/pressure.py). 0: not a limit.
    # The lag's 0.03 s: a loop whose callbacks each wait 30 ms on average already has its
    # tables' p99 past the 50 ms aim (bench/load.md, issue 35)
    shed_lag: float = Field(default=0.03, ge=0)
    shed_settle_age: float = Field(default=5.0, ge=0)
    shed_cpu: float = Field(default=0.0, ge=0, le=1)
    shed_window: float = Field(default=2.0, gt=0, le=60)
    shed_calm: float = Field(default=5.0, ge=0, le=600)
    # a table where no person sits (every seat empty or a bot's) for this many seconds is
    # closed between hands by the node that owns it (app/tables/idle.py); 0: never
    table_idle_close_seconds: int = Field(default=300, ge=0)
    # a private room's dissolve vote: how long its players have to agree (docs/rooms.md)
    room_vote_seconds: float = Field(default=60.0, gt=0, le=600)
    # tournaments (docs/tournaments.md, "Play"): how often a node looks for events to
    # direct and moves the ones it directs on, and how long its lease on an event lasts
    # (a node killed mid-event is replaced within about this)
    tournament_poll_seconds: float = Field(default=1.0, gt=0, le=60)
    tournament_lease_seconds: float = Field(default=10.0, gt=0, le=600)
    # spectators (旁观, docs/protocol.md "Watching a table"): at most this many per table
    # (spectators_full); a spectator's socket is closed (4009) when more than
    # ws_watch_queue_bytes of what it watches wait for it to read: the table never waits
    max_spectators_per_table: int = Field(default=50, ge=0, le=10_000)
    ws_watch_queue_bytes: int = Field(default=64 * 1024, ge=4096)
    # quick chat (快捷语): a seat may send chat_burst phrases at once, then one more every
    # chat_refill_seconds (chat_limited)
    chat_burst: int = Field(default=3, ge=1, le=100)
    chat_refill_seconds: float = Field(default=3.0, gt=0, le=3600)
    # per account: tables it opened that are still open (409 too_many_tables) ...
    max_open_tables: int = Field(default=3, ge=1, le=1000)
    # ... and bot seats it called in the last hour, on one node (429 too_many_bots)
    bot_seats_per_hour: int = Field(default=60, ge=3, le=1_000_000)
    # hand replays (app/api/replay_cache.py; docs/architecture.md "Replays"): built ones are
    # kept up to this many bytes (a long hand's views=true is ~350 KB; 0: none kept), built
    # by this many worker processes, at most replay_builds_waiting builds in hand at once
    # (more: 503 busy), and an account may start replay_builds_per_account builds per
    # replay_window_seconds on one node (429 rate_limited; a kept replay costs nothing)
    replay_cache_bytes: int = Field(default=32 * 1024 * 1024, ge=0)
    replay_builders: int = Field(default=1, ge=1, le=64)
    replay_builds_waiting: int = Field(default=16, ge=1, le=10_000)
    replay_builds_per_account: int = Field(default=20, ge=1, le=1_000_000)
    replay_window_seconds: int = Field(default=60, ge=1, le=86400)
    # quick match (app/api/matcher.py): a queue's first player who has waited this many
    # seconds gets a table with house bots in the empty seats ...
    quick_match_fill_seconds: float = Field(default=20.0, ge=0, le=3600)
    # ... and a queued player with no table socket open on any node keeps their place this
    # many seconds after it was last seen (a page reload), then leaves the queue
    quick_match_grace_seconds: float = Field(default=15.0, ge=0, le=3600)
    # logins (app/api/ratelimit.py; docs/architecture.md "The edge", "Logins"): within the
    # window, attempts allowed per username and address (a good login clears them) ...
    login_attempts: int = Field(default=5, ge=1, le=1000)
    login_window_seconds: int = Field(default=300, ge=1, le=86400)
    # ... and, for a username the address has not logged in to lately, per address (an
    # IPv6 /64) over all usernames, and per username over all addresses
    login_address_attempts: int = Field(default=20, ge=1, le=100_000)
    login_account_attempts: int = Field(default=100, ge=1, le=100_000)
    login_known_days: int = Field(default=30, ge=1, le=365)  # "lately", after a good login
    # password hashes (app/api/passwords.py): at most this many Argon2 runs at once in one
    # process; a login or registration waits at most password_wait_seconds for a turn,
    # then answers 503 busy
    password_hashes_at_once: int = Field(default=2, ge=1, le=64)
    password_wait_seconds: float = Field(default=3.0, gt=0, le=60)
    # Argon2id cost (argon2-cffi's defaults, RFC 9106 low-memory); a stored hash made with
    # other parameters is rehashed at the next good login
    argon2_time_cost: int = 3
    argon2_memory_kib: int = 65536
    argon2_parallelism: int = 4

    # admin test mode: POST /admin/tables/test deals arranged hands (never on in production)
    test_mode: bool = False


@lru_cache
def get_settings() -> Settings:
    return Settings()
