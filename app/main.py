"""The ASGI application: `create_app(settings)` wires the database, the error shape and the
routers; `app` is the instance uvicorn serves."""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, nullcontext

from fastapi import FastAPI

from app.api import (
    accounts,
    admin,
    admin_levels,
    admin_tables,
    auth,
    errors,
    health,
    house_bots,
    leaderboard,
    lobby,
    openapi,
    practice,
    protocol_docs,
    quickmatch,
    replay,
    replay_share,
    rooms,
    tournament_play,
    tournaments,
    ws,
)
from app.api.body_limit import BodyLimit
from app.api.headers import SecurityHeaders
from app.api.matcher import Matcher
from app.api.passwords import Passwords
from app.api.ratelimit import LoginLimits, MemoryQuota
from app.api.replay_cache import ReplayCache
from app.api.signups import SignupLimits
from app.api.throttle import Bars, RequestLimits
from app.ops import memory, metrics
from app.ops.limits_storage import limits_storage
from app.ops.monitoring import monitoring_port
from app.ops.observe import Observe
from app.ops.pressure import Limits, Pressure
from app.ops.secret import signing_secret
from app.rooms.service import Rooms
from app.rules.variants import VARIANTS
from app.settings import Settings, get_settings
from app.store.db import Database
from app.tables.matching import MatchQueue, MemoryMatchQueue
from app.tables.registry import TableRegistry
from app.tables.timers import BotPace
from app.tournaments.director import Tournaments
from app.web import router as web

log = logging.getLogger(__name__)


def create_app(settings: Settings | None = None) -> FastAPI:
    settings = settings or get_settings()
    # a missing secret fails here, at start, with what to set (app/ops/secret.py)
    settings = settings.model_copy(update={"jwt_secret": signing_secret(settings)})

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        app.state.db = Database.connect(settings.database_url)
        await app.state.passwords.warm_up()
        app.state.tables = TableRegistry(
            app.state.db.sessions,
            bot_pace=BotPace.from_ms(*settings.bot_delay_ms),
            idle_close_seconds=settings.table_idle_close_seconds,
            max_spectators=settings.max_spectators_per_table,
            chat_burst=settings.chat_burst,
            chat_refill_seconds=settings.chat_refill_seconds,
            store_concurrency=settings.store_concurrency,
            store_batch=settings.store_batch,
            endings_per_pass=settings.endings_per_pass,
        )
        queue: MatchQueue = MemoryMatchQueue(app.state.tables.sockets.__contains__)
        if settings.redis_url:  # one node of several (docs/cluster.md)
            from app.cluster.matchqueue import RedisMatchQueue
            from app.cluster.node import RedisNetwork

            cluster = RedisNetwork(settings, app.state.tables, app.state.db.sessions)
            app.state.tables.network = cluster.parts()
            # the queues every node shares (app/cluster/matchqueue.py)
            queue = RedisMatchQueue(cluster.redis, cluster.keys)
        app.state.network = app.state.tables.network  # the API's way to the other nodes
        app.state.rooms = Rooms(  # private rooms (app/rooms), told of their tables' hands
            app.state.tables, app.state.db.sessions, vote_seconds=settings.room_vote_seconds
        )
        app.state.tournaments = Tournaments(  # the events this node directs (app/tournaments)
            app.state.tables, app.state.rooms, app.state.db.sessions, node_id=settings.node_id,
            bot_pool_size=settings.bot_pool_size, poll=settings.tournament_poll_seconds,
            lease_seconds=settings.tournament_lease_seconds,
        )
        await app.state.network.membership.start()
        app.state.tournaments.start()
        app.state.matcher = Matcher(
            app.state.tables, app.state.db.sessions, settings, queue, app.state.bot_quota
        )
        app.state.matcher.start()
        pressure = Pressure(  # sheds new work while this process is too busy (app/ops/pressure.py)
            Limits(lag=settings.shed_lag, settle_age=settings.shed_settle_age,
                   cpu=settings.shed_cpu, window=settings.shed_window, calm=settings.shed_calm),
            settle_age=app.state.tables.settlement.oldest_wait,
        )
        app.state.tables.pressure = pressure
        listener = (  # /metrics on its own listener only
            monitoring_port(app, settings.metrics_host, settings.metrics_port)
            if settings.metrics_port is not None
            else nullcontext()
        )
        collector = (  # the garbage collector on a clock (app/ops/memory.py)
            memory.clock_running(settings.gc_every, settings.gc_full_every, settings.gc_full_first,
                                 settings.gc_full_growth)
            if settings.gc_every
            else nullcontext()
        )
        async with listener, collector, pressure.running():
            yield
        await app.state.matcher.stop()
        await app.state.tournaments.stop()
        await app.state.tables.stop()
        await app.state.rooms.stop()
        await app.state.network.membership.stop()
        await app.state.db.close()
        app.state.replays.close()

    docs = settings.api_docs  # off: no /docs, /redoc or /openapi.json (the container image)
    app = FastAPI(
        title="Zhejiang and Fujian mahjong",
        version="0.1.0",
        lifespan=lifespan,
        docs_url="/docs" if docs else None,
        redoc_url="/redoc" if docs else None,
        openapi_url="/openapi.json" if docs else None,
        generate_unique_id_function=openapi.operation_id,
    )
    app.state.settings = settings
    app.state.readiness = lambda: health.readiness(  # read by /metrics too (mahjong_ready)
        getattr(app.state, "db", None), settings.redis_url
    )
    app.state.passwords = Passwords.from_settings(settings)
    app.state.limits = limits_storage(settings)  # rate-limit counters (app/ops/limits_storage.py)
    app.state.login_limits = LoginLimits(app.state.limits, settings)  # app/api/ratelimit.py
    app.state.signup_limits = SignupLimits(app.state.limits, settings)  # app/api/signups.py
    app.state.bot_quota = MemoryQuota(settings.bot_seats_per_hour, 3600)  # app/api/house_bots.py
    app.state.replays = ReplayCache.from_settings(settings)  # app/api/replay.py
    app.state.ws_slots = ws.AddressSlots(settings.ws_connections_per_address)  # app/api/ws.py
    errors.install(app)
    openapi.install(app)  # the edge's answers in the document (app/api/openapi.py)
    # the edge (docs/architecture.md, "The edge"), outermost first: security headers on
    # every answer, request limits (429), then body sizes (413), both before the app reads
    # a byte of the body
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.state.request_bars = Bars(settings, app.state.limits)  # also counted by app/api/ws.py
    app.add_middleware(RequestLimits, bars=app.state.request_bars)
    app.add_middleware(SecurityHeaders)
    app.add_middleware(Observe, node=settings.node_id)  # request ids, node ids, HTTP metrics
    for router in (
        auth.router,
        accounts.router,
        leaderboard.router,
        admin.router,
        admin_tables.router,
        lobby.router,
        house_bots.router,
        rooms.router,
        tournaments.router,
        tournament_play.router,
        quickmatch.router,
        practice.router,
        admin_levels.router,
        ws.router,
        replay.router,
        replay_share.router,
        protocol_docs.router,
        web.router,
        health.router,
    ):
        app.include_router(router)
    if settings.metrics_port is None:
        app.include_router(metrics.router)

    @app.get("/variants", tags=["rules"])
    def variants() -> list[dict[str, object]]:
        """The rule sets this server plays, with their options and defaults."""
        return [
            {"name": name, "hand_size": rs.hand_size, "options": vars(rs.options)}
            for name, rs in VARIANTS.items()
        ]

    return app


app = create_app()
