"""Sockets and messages between nodes: presence names the node holding each account's
socket; a client's message for a table owned elsewhere is published to the owner's
channel, and a message for a seat whose socket is on another node to that node's channel.
A closing socket tells the owners of the tables it played at or watched (`away`), and the
players at this node's tables whose socket was on another node are marked disconnected
once their presence entry is gone (`check_presence`), connected again when it comes back.

A socket that opens on a node other than its table's owner is greeted by the owner
(`ARRIVED`): in the script that follows the presence entry's, the socket's node reads the
account's seat claim and tells the owner of that table (`Arrived`), which sends ``seated``,
``table_state``, a snapshot of the hand in play and the seat's prompt, as the registry
does for a socket of its own (`TableRegistry.arrived`). Until a ``seated`` has come, the
socket's node drops what a table sends the seat (`_unseated`): events and prompts the
owner sent before it knew of the socket are in the snapshot, and nothing of a table
reaches a seat before its ``seated`` and ``table_state`` (docs/protocol.md, "Connecting").

Spectators (旁观) whose socket is on another node: the owner sends a watched table's
message once per node (`deliver_watched`, `ToSpectators`), and that node queues it for
each of its sockets that watch, under the spectators' bound (app/api/ws.py). The owner
ends such a watch when the socket closes (`away`) and when the account's presence no
longer names the node that asked (`check_spectators`: it logged in elsewhere, or that
node died).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections import defaultdict
from collections.abc import Callable

from redis.exceptions import RedisError

from app.cluster.context import NodeContext
from app.cluster.messages import Arrived, Away, Close, ToAccount, ToSpectators, ToTable
from app.cluster.moving import Pending
from app.cluster.presence import Presence
from app.cluster.writer import Done, Gather
from app.protocol import (
    SERVER_MESSAGE,
    ClientMessage,
    ErrorMessage,
    ServerMessage,
    UnwatchMessage,
    parse_client,
)
from app.protocol.encode import Encoded
from app.tables.messages import Connected, Disconnected
from app.tables.routing import route
from app.tables.sockets import Sink

log = logging.getLogger(__name__)

CLOSE_REPLACED = 4000  # as app.api.ws: a newer login closed this socket

# A client message for a table: publish it to the lease holder's channel. -1: no such
# table; -2: listed but nobody holds its lease (failing over); 0: the owner does not listen
ROUTE_TABLE = """
local v = redis.call('GET', KEYS[1])
if not v then
  if redis.call('HEXISTS', KEYS[2], ARGV[3]) == 1 then return -2 end
  return -1
end
local node = string.match(v, '^(.*)|')
return redis.call('PUBLISH', ARGV[1] .. node, ARGV[2])
"""

# Messages for accounts (KEYS: their presence entries; ARGV: the channel prefix, then one
# `[account, type, text]` JSON item per key): one `to_accounts` message per node holding
# some of the sockets, its items in the order given; an account with no socket is skipped.
# The number of nodes published to.
ROUTE_ACCOUNTS = """
local by_node, nodes = {}, {}
for i, key in ipairs(KEYS) do
  local node = redis.call('GET', key)
  if node then
    local items = by_node[node]
    if not items then
      items = {}
      by_node[node] = items
      nodes[#nodes + 1] = node
    end
    items[#items + 1] = ARGV[i + 1]
  end
end
for _, node in ipairs(nodes) do
  redis.call('PUBLISH', ARGV[1] .. node,
    '{"kind":"to_accounts","items":[' .. table.concat(by_node[node], ',') .. ']}')
end
return #nodes
"""


# A socket of the account arrived on this node (run after the presence entry is set, so
# that a sit claimed after this read routes its `seated` here): tell the owner of the table
# the account's seat claim names, when that is another node, to greet the socket
# (`Arrived`). KEYS: seated:<account>. ARGV: the lease keys' prefix, the channel prefix,
# this node, the account. The claimed table (false: none); its lease key is built here,
# as `Leases.unheld` builds its own (one Redis, not Redis Cluster).
ARRIVED = """
local claim = redis.call('GET', KEYS[1])
if not claim then return false end
local table_id = string.match(claim, '^(.*)|')
local lease = redis.call('GET', ARGV[1] .. table_id)
local owner = lease and string.match(lease, '^(.*)|')
if owner and owner ~= ARGV[3] then
  redis.call('PUBLISH', ARGV[2] .. owner,
    cjson.encode({kind = 'arrived', account = tonumber(ARGV[4]), table_id = table_id}))
end
return table_id
"""

# What a table sends a seat that waits for the seat's `seated` on a socket that arrived
# here (`Routing.to_account`): the hand, the table's state and its chat. Errors answer the
# client's own messages, and `muted` a spectator's too: those pass.
SEAT_STREAM = frozenset({"event", "prompt", "snapshot", "table_state", "chat"})


def _error(code: str, message: str) -> ErrorMessage:
    return ErrorMessage(code=code, message=message)  # type: ignore[arg-type]


def _refusal(result: object, message: ClientMessage) -> ErrorMessage | None:
    """The answer to a client's message that reached no table (`Pending.give_up`): -1, no
    such table; anything else, no node took it over in time."""
    table_id = message.table_id  # type: ignore[union-attr]  # ping never gets here
    if isinstance(message, UnwatchMessage):
        return None  # nothing to end
    if result == -1 and message.type in _NEEDS_NO_SEAT:
        return _error("no_table", f"no table {table_id!r}")
    if result == -1:
        return _error("wrong_table", "you do not sit at that table")
    return _error("internal", "the table is moving to another server; resume")


class Routing:
    """The sockets of this node (`sinks`) and the routes to and from the other nodes'
    (the tables' `Delivery`). `owns(table_id)`: this node holds the table's lease."""

    remote = True

    def __init__(
        self, node: NodeContext, presence: Presence, owns: Callable[[str], bool]
    ) -> None:
        self._node = node
        self.presence = presence
        self._owns = owns
        self._route_table = node.redis.register_script(ROUTE_TABLE)
        self._arrived = node.redis.register_script(ARRIVED)
        self._to_accounts = Gather(
            node.redis.register_script(ROUTE_ACCOUNTS), (node.keys.channel_prefix,)
        )
        self.sinks: dict[int, Sink] = {}
        # accounts whose socket here has had no `seated` from another node yet: what a
        # table there sends the seat is dropped until it comes (the module's docstring)
        self._unseated: set[int] = set()
        self._forwarded: dict[int, set[str]] = defaultdict(set)
        # players seated at this node's tables -> the node that held their socket when
        # presence was last read (`check_presence`)
        self._seen: dict[int, str] = {}
        self._marked: set[tuple[str, int]] = set()  # (table, account) marked away by it

    # --- this node's sockets ----------------------------------------------------------------

    def connected(self, account_id: int, sink: Sink) -> None:
        """A socket of the account opened here: presence names this node, and the owner
        of the table the account sits at, if another node, is asked to greet it."""
        node = self._node
        keys = node.keys
        self.sinks[account_id] = sink
        # set before anything is published: a table's message may come back at once
        self._unseated.add(account_id)
        close = Close(account=account_id, code=CLOSE_REPLACED, by_node=node.node_id)
        presence_keys, args = self.presence.arrive_args(account_id, close.model_dump_json())
        node.writer.put(self.presence.arrive_script, presence_keys, args)

        def claimed(table_id: object) -> None:
            # no seat, or one at a table of this node (greeted by the registry itself): no
            # `seated` will come from elsewhere for it. A seat at a table failing over
            # waits for the `seated` that the client's `resume` brings from the new owner
            if sink is self.sinks.get(account_id) and (
                not isinstance(table_id, str) or self._owns(table_id)
            ):
                self._unseated.discard(account_id)

        node.writer.put(
            self._arrived, [keys.seated(account_id)],
            [keys.lease(""), keys.channel_prefix, node.node_id, account_id], claimed,
        )

    def disconnected(self, account_id: int, sink: Sink) -> None:
        node = self._node
        if self.sinks.get(account_id) is not sink:
            return  # replaced by a newer login on another node
        del self.sinks[account_id]
        self._unseated.discard(account_id)
        node.writer.put(
            self.presence.leave_script, [node.keys.online(account_id)], [node.node_id]
        )
        for table_id in self._forwarded.pop(account_id, set()):
            away = Away(account=account_id, table_id=table_id)
            self.to_table(table_id, away.model_dump_json())

    def forward(self, account_id: int, message: ClientMessage) -> bool:
        table_id = message.table_id  # type: ignore[union-attr]  # ping never gets here
        self._forwarded[account_id].add(table_id)
        sent = ToTable(
            account=account_id, table_id=table_id, reply_node=self._node.node_id,
            message=message.model_dump_json(),
        )

        sink = self.sinks.get(account_id)

        def refuse(result: object) -> None:
            refusal = _refusal(result, message)
            if refusal is not None and sink is not None:
                sink.deliver(refusal)

        def here() -> None:  # this node took the table over meanwhile
            answer = route(message, self._node.registry, account_id)
            if answer is not None and sink is not None:
                sink.deliver(answer)

        Pending(
            table_id, sent.model_dump_json(), self.to_table, self._owns,
            here=lambda: self._node.registry.get(table_id) is not None, serve_here=here,
            give_up=refuse, alive=lambda: self.sinks.get(account_id) is sink,
        ).start()
        return True

    def deliver(self, account_id: int, message: ServerMessage) -> None:
        self._to_account(account_id, None, message.model_dump_json())

    def deliver_encoded(self, account_id: int, encoded: Encoded) -> None:
        """`deliver` for a message already written as its wire text."""
        self._to_account(account_id, encoded.type, encoded.text)

    def _to_account(self, account_id: int, type_: str | None, text: str) -> None:
        """Queue a message for the node holding the account's socket (gathered with the
        writer's batch: `ROUTE_ACCOUNTS`); with `type`, the text is sent as it is."""
        node = self._node
        item = json.dumps([account_id, type_, text], ensure_ascii=False)
        node.writer.gather(self._to_accounts, node.keys.online(account_id), item)

    def deliver_watched(self, node_id: str, accounts: list[int], encoded: Encoded) -> None:
        payload = ToSpectators(accounts=accounts, type=encoded.type, message=encoded.text)
        self._node.publish(node_id, payload.model_dump_json())

    def to_table(self, table_id: str, payload: str, done: Done | None = None) -> None:
        """Queue `payload` for the owner of `table_id`; `done` gets the script's result
        (above 0: published; -1: no such table; -2: failing over; 0: the owner is gone)."""
        keys = self._node.keys
        self._node.writer.put(
            self._route_table,
            [keys.lease(table_id), keys.directory],
            [keys.channel_prefix, payload, table_id],
            done,
        )

    async def to_table_now(self, table_id: str, payload: str) -> object:
        """`to_table` at once, outside the writer's queue: the script's result."""
        keys = self._node.keys
        return await self._route_table(
            keys=[keys.lease(table_id), keys.directory],
            args=[keys.channel_prefix, payload, table_id],
        )

    async def refresh_forever(self) -> None:
        interval = self.presence.ttl_ms / 3000
        while True:
            await asyncio.sleep(interval)
            try:
                await self.presence.refresh(list(self.sinks))
            except (RedisError, OSError) as exc:
                log.warning("node %s: refreshing presence failed: %s", self._node.node_id, exc)

    async def leave_all(self) -> None:
        """This node stops: its sockets' presence entries go (as far as Redis answers)."""
        for account_id in list(self.sinks):
            try:
                await self.presence.leave(account_id)
            except (RedisError, OSError):
                break

    # --- from the bus -----------------------------------------------------------------------

    def to_account(self, account: int, type_: str | None, text: str) -> None:
        """A message for an account whose socket is here (`ToAccount`, `ToAccounts`)."""
        sink = self.sinks.get(account)
        if sink is None:
            return
        if account in self._unseated and not self._passes(account, type_, text):
            return
        deliver_encoded = getattr(sink, "deliver_encoded", None)
        if type_ is not None and deliver_encoded is not None:
            deliver_encoded(Encoded(type_, text))
        else:
            sink.deliver(SERVER_MESSAGE.validate_json(text))

    def _passes(self, account: int, type_: str | None, text: str) -> bool:
        """Whether a table's message goes to the socket of an account that has had no
        ``seated`` since it arrived here: ``seated`` does (and ends the wait), the seat's
        stream does not (the owner's greeting sends it again: `ARRIVED`). Parsed only
        while waiting, a moment after a socket opens."""
        kind = type_ if type_ is not None else json.loads(text).get("type")
        if kind == "seated":
            self._unseated.discard(account)
            return True
        return kind not in SEAT_STREAM

    def to_spectators(self, message: ToSpectators) -> None:
        """A watched table's message for the spectators whose sockets are here."""
        encoded = Encoded(message.type, message.message)
        for account in message.accounts:
            sink = self.sinks.get(account)
            watched = getattr(sink, "deliver_watched", None)
            if watched is not None:
                watched(encoded)
            elif sink is not None:
                sink.deliver(SERVER_MESSAGE.validate_json(message.message))

    def serve(self, sent: ToTable) -> None:
        """A client's message forwarded by the node holding its socket."""
        node = self._node
        parsed = parse_client(sent.message)
        answer: ServerMessage | None
        if isinstance(parsed, ErrorMessage):
            answer = parsed
        elif node.registry.get(sent.table_id) is None:  # not served here: to its next owner
            self._pass_on(sent, parsed)
            return
        else:
            # as from a socket here (a watch: through the node that holds the socket)
            answer = route(parsed, node.registry, sent.account, via=sent.reply_node)
        if answer is not None:
            payload = ToAccount(account=sent.account, message=answer.model_dump_json())
            node.publish(sent.reply_node, payload.model_dump_json())

    def _pass_on(self, sent: ToTable, message: ClientMessage) -> None:
        """A client's message for a table this node does not serve (it stopped it, or is
        taking it over): served here if it comes, else sent on to its next owner (never to
        this node while it holds the lease), else refused to the socket's node in time."""
        node = self._node

        def answer(reply: ServerMessage | None) -> None:
            if reply is not None:
                payload = ToAccount(account=sent.account, message=reply.model_dump_json())
                node.publish(sent.reply_node, payload.model_dump_json())

        Pending(
            sent.table_id, sent.model_dump_json(), self.to_table, self._owns,
            here=lambda: node.registry.get(sent.table_id) is not None,
            serve_here=lambda: answer(
                route(message, node.registry, sent.account, via=sent.reply_node)
            ),
            give_up=lambda result: answer(_refusal(result, message)),
        ).start()

    def away(self, table_id: str, account_id: int) -> int | None:
        """The account's socket is gone: its seat at the table is disconnected (the seat),
        its watch of the table ends."""
        live = self._node.registry.get(table_id)
        if live is not None and account_id in live.watchers.spectators:
            live.watchers.unwatch(account_id)
        seat = live.seat_of(account_id) if live is not None else None
        if live is not None and seat is not None:
            live.table.submit(Disconnected(seat))
        return seat

    def arrived(self, message: Arrived) -> None:
        """The account's socket opened on another node and it sits at `table_id`: its seat
        here is connected and greeted (`TableRegistry.arrived`)."""
        self._node.registry.connections.arrived(message.table_id, message.account)

    def close(self, message: Close) -> None:
        """A newer login elsewhere: close the account's socket here."""
        sink = self.sinks.pop(message.account, None)
        self._unseated.discard(message.account)
        if sink is not None:
            # forgotten first, so that its closing does not mark the account's seats
            # disconnected: the player is connected, on another node
            self._node.registry.connections.disconnect(message.account, sink)
            sink.close(message.code)

    # --- the players at this node's tables --------------------------------------------------

    async def locate(self, accounts: list[int]) -> dict[int, str]:
        """The accounts with a live socket, and the node holding it: presence names a node
        that still listens on its channel (a killed node's entries outlive it by their
        TTL). Remembered as the presence last read (a table taken over: `check_presence`
        marks a seat away once its player's entry is gone)."""
        if not accounts:
            return {}
        node = self._node
        nodes = [
            None if n is None else str(n)
            for n in await node.redis.mget([node.keys.online(a) for a in accounts])
        ]
        others = sorted({n for n in nodes if n is not None and n != node.node_id})
        alive = {node.node_id}
        if others:
            counts = await node.redis.pubsub_numsub(*[node.keys.channel(n) for n in others])
            alive |= {n for n, (_, count) in zip(others, counts) if int(count) > 0}
        present = {
            a: n for a, n in zip(accounts, nodes)
            if n is not None and n in alive and (n != node.node_id or a in self.sinks)
        }
        self._seen.update(present)
        return present

    async def check_presence(self) -> list[tuple[str, int]]:
        """Mark disconnected the seats (at tables this node owns) of players whose socket
        was on another node and whose presence entry is gone (that node closed the socket,
        or died and its entries expired): the same `Disconnected` as a local socket drop.
        A seat so marked is connected again when its player's entry comes back (the
        player logged in again, or the entry had only lapsed). The (table, seat) pairs
        marked disconnected."""
        node = self._node
        # a player whose socket is on this node is followed by that socket (its close is
        # a local disconnect); only the others are asked about, and those marked before
        marked_accounts = {account for _, account in self._marked}
        seated = []
        for live in node.registry.all():
            if not self._owns(live.table_id):
                continue
            bots = live.bots  # a set made per call: once a table, not once a seat
            seated += [
                (live, seat, account) for seat, account in enumerate(live.accounts())
                if account is not None and account not in bots
                and (account not in self.sinks or account in marked_accounts)
            ]
        accounts = sorted({account for _, _, account in seated})
        nodes = (
            await node.redis.mget([node.keys.online(a) for a in accounts]) if accounts else []
        )
        now = {a: None if n is None else str(n) for a, n in zip(accounts, nodes)}
        before, self._seen = self._seen, {a: n for a, n in now.items() if n is not None}
        marked_before, self._marked = self._marked, set()
        marked = []
        for live, seat, account in seated:
            key = (live.table_id, account)
            if now[account] is not None:
                if key in marked_before:
                    live.table.submit(Connected(seat))
                continue
            held_by = before.get(account)
            if key in marked_before:
                self._marked.add(key)
            elif held_by is not None and held_by != node.node_id and account not in self.sinks:
                live.table.submit(Disconnected(seat))
                self._marked.add(key)
                marked.append((live.table_id, seat))
        return marked

    async def check_spectators(self) -> list[tuple[str, int]]:
        """End the watches (at this node's tables) of spectators whose socket is on
        another node when presence no longer names that node: the socket closed without
        telling (its node died) or the account logged in elsewhere. The (table, account)
        pairs ended."""
        node = self._node
        # (table, account, node) of every spectator whose socket is on another node
        watching = [(live.table_id, account, held_by)
                    for live in node.registry.all() if self._owns(live.table_id)
                    for account, held_by in live.watchers.remote()]
        if not watching:
            return []
        accounts = sorted({account for _, account, _ in watching})
        nodes = await node.redis.mget([node.keys.online(a) for a in accounts])
        now = {a: None if n is None else str(n) for a, n in zip(accounts, nodes)}
        ended = []
        for table_id, account, held_by in watching:
            if now[account] != held_by:
                live = node.registry.get(table_id)
                if live is not None:
                    live.watchers.unwatch(account)
                ended.append((table_id, account))
        return ended


_NEEDS_NO_SEAT = frozenset({"watch", "chat", "mute", "unmute"})
