"""The load test's clients: one WebSocket each, the same machinery for the game and the echo.

`Link` owns a connection: it counts every message both ways in a shared `Meter` (and keeps a
sample of their sizes), reads in its own task and hands each text frame to `on_message`.
`GameBot` plays one seat: it answers every prompt (胡 when offered; in a claim window it
passes three times in four and otherwise takes a random claim; on its turn a random legal
action, which is nearly always a random discard), at once or after a think time drawn
uniformly from a range, never faster than the server's per-socket limit, and measures the
latency of each action on its own turn (a discard, a kong, a 胡): from sending it to the
first event that follows, the action's own. Answers in a claim window are not measured:
the window's outcome waits for the other seats' answers, their think time included. An
answer whose prompt was overtaken by a newer event before it could be sent is not sent.
`EchoClient` sends one message of a size drawn from the game's own messages and waits for it
to come back, over and over.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import deque
from typing import Any

import websockets
from websockets.asyncio.client import ClientConnection, connect

from app.loadtest.stats import Meter
from app.protocol import HelloMessage

Message = dict[str, Any]

SEND_LIMIT = 18  # messages per second per socket: below the server's 20 (app/api/ws.py)
PASS_SHARE = 0.75  # in a claim window, how often a bot passes rather than claims
# codes a client gets when its answer crossed a newer event: a race of the network, not a fault
LATE_CODES = frozenset({"stale", "not_your_turn", "hand_over"})


def choose_answer(legal: list[Message], rng: random.Random) -> Message:
    """A load bot's answer to a prompt: 胡 when offered; in a claim window mostly pass;
    otherwise a random legal action."""
    hu = [a for a in legal if a["type"] == "hu"]
    if hu:
        return hu[0]
    others = [a for a in legal if a["type"] != "pass"]
    if len(others) < len(legal) and (not others or rng.random() < PASS_SHARE):
        return {"type": "pass"}
    return rng.choice(others)


class Pace:
    """At most `limit` sends in any second (a sliding window): how long to wait first."""

    def __init__(self, limit: int = SEND_LIMIT) -> None:
        self._limit = limit
        self._times: deque[float] = deque()

    def wait(self, now: float) -> float:
        while self._times and now - self._times[0] >= 1.0:
            self._times.popleft()
        if len(self._times) < self._limit:
            return 0.0
        return 1.0 - (now - self._times[0])

    def sent(self, now: float) -> None:
        self._times.append(now)


class Link:
    """One WebSocket client counting into `meter`."""

    def __init__(self, meter: Meter) -> None:
        self.meter = meter
        self.ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._closing = False

    async def open(self, url: str) -> None:
        # no per-message deflate, as the game server (python -m app) sends its frames
        self.ws = await connect(
            url, max_size=2**20, open_timeout=30, ping_interval=None, compression=None
        )
        self.meter.open += 1
        self.meter.opened += 1
        self._reader = asyncio.create_task(self._read())

    async def send(self, message: Message | str) -> None:
        assert self.ws is not None
        text = message if isinstance(message, str) else json.dumps(message)
        await self.ws.send(text)
        self.meter.sent += 1
        self.meter.size(len(text))

    async def _read(self) -> None:
        assert self.ws is not None
        try:
            async for raw in self.ws:
                text = raw if isinstance(raw, str) else raw.decode()
                self.meter.received += 1
                self.meter.size(len(text))
                self.on_message(text)
        except websockets.ConnectionClosed:
            pass
        except Exception as exc:  # noqa: BLE001 - a client fault is counted, never hidden
            self.meter.errors[f"client:{type(exc).__name__}"] += 1
        finally:
            self.meter.open -= 1
            if not self._closing:
                self.meter.dropped += 1

    def on_message(self, text: str) -> None:
        raise NotImplementedError

    async def close(self) -> None:
        self._closing = True
        if self.ws is not None:
            await self.ws.close()
        if self._reader is not None:
            await asyncio.gather(self._reader, return_exceptions=True)


class GameBot(Link):
    """One seat of one table."""

    def __init__(
        self, meter: Meter, rng: random.Random, counts_hands: bool,
        think: tuple[float, float] = (0.0, 0.0),
    ) -> None:
        super().__init__(meter)
        self.rng = rng
        self.think = think  # seconds before answering, drawn uniformly; (0, 0): at once
        self.counts_hands = counts_hands  # one seat per table counts the hands
        self.hands = 0  # hands it saw end (counted only with counts_hands)
        self.in_burst = False  # its table takes part in a settlement burst (worker.py)
        self.seated = False  # sat at `table_id` and has not left since (worker.py)
        self.table_id = ""
        self.seat = -1
        self.last_seq = 0
        self.prompt_seq: int | None = None  # the prompt not yet overtaken, if any
        self.waiting_since: float | None = None  # an action sent, its event not seen yet
        self.pace = Pace()
        self.in_hand = asyncio.Event()  # a hand is in play at its table (a leave escapes)
        self._pong = asyncio.Event()
        self._pending: set[asyncio.Task[None]] = set()

    async def join(self, url: str, token: str) -> None:
        """Open the table socket (`url`: /ws, or /ws/<table_id>) and say hello with the
        access token, then return once the server has registered this socket for the
        account (it answers a ping only after the hello), so that no event of the hand is
        routed past it."""
        await self.open(url)
        await self.send(HelloMessage(v=2, token=token).model_dump_json())
        await self.send({"type": "ping", "nonce": "ready"})
        await asyncio.wait_for(self._pong.wait(), 30)

    def on_message(self, text: str) -> None:
        message = json.loads(text)
        kind = message.get("type")
        if kind == "event":
            self._on_event(message)
        elif kind == "prompt":
            self._on_prompt(message)
        elif kind == "error":
            code = str(message.get("code"))
            if code in LATE_CODES:
                self.meter.late[code] += 1
            else:
                self.meter.errors[code] += 1
            self.waiting_since = None
        elif kind == "pong":
            self._pong.set()

    def _on_event(self, message: Message) -> None:
        self.last_seq = max(self.last_seq, int(message["seq"]))
        self.prompt_seq = None
        event = message["event"]
        if self.waiting_since is not None:
            latency = time.perf_counter() - self.waiting_since
            self.meter.latencies.append(latency)
            if not self.in_burst:
                self.meter.steady.append(latency)
            self.waiting_since = None
        if event.get("kind") != "hand_ended":
            self.in_hand.set()
        else:
            self.in_hand.clear()
            self.waiting_since = None
            if self.counts_hands:
                self.meter.hands += 1
                self.hands += 1

    def _on_prompt(self, message: Message) -> None:
        if not self.seated:
            return  # sent before the server had our leave: the seat is not ours any more
        seq = int(message["seq"])
        self.prompt_seq = seq
        legal = message["legal_actions"]
        task = asyncio.create_task(self._answer(seq, self.choose(legal), legal))
        self._pending.add(task)
        task.add_done_callback(self._pending.discard)

    def choose(self, legal: list[Message]) -> Message:
        return choose_answer(legal, self.rng)

    async def _answer(self, seq: int, action: Message, legal: list[Message]) -> None:
        if self.think[1] > 0:
            await asyncio.sleep(self.rng.uniform(*self.think))
        if self.prompt_seq != seq:
            return
        wait = self.pace.wait(time.monotonic())
        if wait > 0:
            await asyncio.sleep(wait)
            if self.prompt_seq != seq:
                return  # overtaken while waiting: the next prompt will come
        self.pace.sent(time.monotonic())
        message = {
            "type": "action",
            "table_id": self.table_id,
            "seq": max(seq, self.last_seq),
            "action": action,
        }
        if not any(a["type"] == "pass" for a in legal):
            self.waiting_since = time.perf_counter()
        try:
            await self.send(message)
        except websockets.ConnectionClosed:
            pass  # counted by the reader

    async def leave(self) -> None:
        """Get up (an escape if a hand is in play), so the table stops playing for us; an
        answer still thinking is not sent (the seat is freed at once: `wrong_table`)."""
        self.seated = False
        self.prompt_seq = None
        try:
            await self.send({"type": "leave", "table_id": self.table_id})
        except websockets.ConnectionClosed:
            pass


class EchoClient(Link):
    """Closed loop against an echo server: one message in flight, sized like the game's."""

    def __init__(self, meter: Meter, rng: random.Random, sizes: list[int]) -> None:
        super().__init__(meter)
        self.rng = rng
        self.sizes = sizes or [200]
        self._back: asyncio.Event = asyncio.Event()

    def on_message(self, text: str) -> None:
        self._back.set()

    async def run(self, until: float) -> None:
        """Echo until the wall clock (`time.time()`) reaches `until`."""
        while time.time() < until:
            size = self.rng.choice(self.sizes)
            body = json.dumps({"type": "echo", "pad": ""})
            payload = body[:-2] + "x" * max(0, size - len(body)) + body[-2:]
            self._back.clear()
            started = time.perf_counter()
            try:
                await self.send(payload)
                await asyncio.wait_for(self._back.wait(), 10)
            except (websockets.ConnectionClosed, TimeoutError):
                self.meter.errors["echo:lost"] += 1
                return
            self.meter.latencies.append(time.perf_counter() - started)
