"""Lobby and admin calls between nodes: the lobby reads every node's tables from the
directory; sitting, leaving or an admin command at a table owned elsewhere is a call to
the owner over the bus, answered by a `Reply` (the result, or the owner's error code).
The owner seats an account only with its cluster-wide seat claim (`claims`): one table at
a time per account, given back when the seat is freed. A ban is told to every other node.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
from collections.abc import Callable, Iterator, Sequence
from typing import Any

from redis.exceptions import RedisError

from app.cluster.claims import Claims
from app.cluster.context import NodeContext
from app.cluster.lease import Leases
from app.cluster.messages import AdminCall, Banned, Call, Reply
from app.cluster.ownership import summary_of
from app.cluster.routing import Routing
from app.tables import admin as table_admin
from app.tables.errors import UNAVAILABLE, RemoteRefused, TableError

log = logging.getLogger(__name__)

CALL_TIMEOUT = 5.0
# an admin command waits up to ADMIN_WAIT_SECONDS for the owner's actor; the bus adds little
ADMIN_CALL_TIMEOUT = table_admin.ADMIN_WAIT_SECONDS + 2.0


def _load(raw: str) -> dict[str, Any]:
    value = json.loads(raw)
    assert isinstance(value, dict)
    return value


class Calls:
    """Calls this node makes and answers: the tables' `RemoteTables` and `SeatClaims`.
    `lost_here(table_id)`: this node served the table until a newer owner fenced it off
    (an admin command for it is refused as moving, not answered as unknown)."""

    def __init__(
        self,
        node: NodeContext,
        routing: Routing,
        claims: Claims,
        leases: Leases,
        lost_here: Callable[[str], bool],
    ) -> None:
        self._node = node
        self._routing = routing
        self.claims = claims
        self._leases = leases
        self._lost_here = lost_here
        self._calls: dict[str, asyncio.Future[Reply]] = {}
        self.answering: set[asyncio.Task[None]] = set()  # admin commands run for others

    # --- the lobby --------------------------------------------------------------------------

    async def tables(self) -> list[dict[str, Any]] | None:
        raw = await self._node.redis.hvals(self._node.keys.directory)
        return sorted((_load(str(r)) for r in raw), key=lambda s: str(s["id"]))

    async def summary(self, table_id: str) -> dict[str, Any] | None:
        raw = await self._node.redis.hget(self._node.keys.directory, table_id)
        return None if raw is None else _load(str(raw))

    async def owner(self, table_id: str) -> str | None:
        return await self._leases.owner(table_id)

    async def call(
        self, op: str, table_id: str, account_id: int, seat: int | None = None, *,
        bot: bool = False,
    ) -> tuple[dict[str, Any], int | None]:
        """Sit or leave (`op`) at a table another node owns: its summary and the seat."""
        assert op in ("sit", "leave")
        call = Call(
            id=secrets.token_hex(8), reply_node=self._node.node_id, op=op,  # type: ignore[arg-type]
            table_id=table_id, account=account_id, seat=seat, bot=bot,
        )
        with self._awaiting(call.id) as future:

            def routed(result: object) -> None:
                if not (isinstance(result, int) and result > 0) and not future.done():
                    future.set_exception(
                        RemoteRefused("not_found", f"table {table_id!r} is not served right now")
                    )

            self._routing.to_table(table_id, call.model_dump_json(), routed)
            reply = await self._reply(future, CALL_TIMEOUT, RemoteRefused(
                UNAVAILABLE, f"table {table_id!r} did not answer; try again"
            ))
        assert reply.table is not None
        return reply.table, reply.seat

    async def answer(self, call: Call) -> None:
        """Sit or leave at a table of this node for another node's lobby."""
        registry = self._node.registry
        live = registry.get(call.table_id)
        if live is None:
            reply = Reply(id=call.id, code="not_found", message=f"no table {call.table_id!r}")
        else:
            try:
                seat: int | None = None
                if call.op == "sit":
                    seat = await registry.take_seat(
                        call.table_id, call.account, call.seat, bot=call.bot
                    )
                else:
                    await registry.require(call.table_id).leave(call.account)
                reply = Reply(id=call.id, table=summary_of(live, self._node.node_id), seat=seat)
            except TableError as refused:
                reply = Reply(
                    id=call.id, code=refused.code, message=refused.message,
                    details=refused.details,
                )
        self._node.publish(call.reply_node, reply.model_dump_json())

    # --- seat claims and bans ---------------------------------------------------------------

    async def claim_seat(self, account_id: int, table_id: str) -> str:
        try:
            return await self.claims.claim(account_id, table_id)
        except (RedisError, OSError) as exc:  # not claimed: not seated
            log.warning("node %s: claiming a seat failed: %s", self._node.node_id, exc)
            raise RemoteRefused(
                UNAVAILABLE, "the lobby cannot seat you right now; try again"
            ) from None

    async def seated(self, account_ids: Sequence[int]) -> set[int]:
        try:
            return await self.claims.seated(account_ids)
        except (RedisError, OSError) as exc:
            log.warning("node %s: reading seat claims failed: %s", self._node.node_id, exc)
            raise RemoteRefused(
                UNAVAILABLE, "the lobby cannot seat you right now; try again"
            ) from None

    def release_seat(self, account_id: int, table_id: str) -> None:
        keys, args = self.claims.release_args(account_id, table_id)
        self._node.writer.put(self.claims.release_script, keys, args)

    async def banned(self, account_id: int) -> None:
        """Tell every other node (each listening on its channel) that the account is banned;
        returns once the messages are published."""
        node = self._node
        message = Banned(account=account_id, by_node=node.node_id).model_dump_json()
        try:
            nodes = await self._nodes()
        except (RedisError, OSError) as exc:
            log.error("node %s: the ban of account %d reached no other node: %s",
                      node.node_id, account_id, exc)
            return
        for other in nodes:
            if other != node.node_id:
                node.publish(other, message)
        await node.writer.flush()

    async def _nodes(self) -> list[str]:
        """The nodes listening on their channel now, in name order."""
        prefix = self._node.keys.channel_prefix
        pattern = "".join("\\" + c if c in "*?[]\\" else c for c in prefix) + "*"
        return sorted(
            str(c)[len(prefix):] for c in await self._node.redis.pubsub_channels(pattern)
        )

    # --- administration ---------------------------------------------------------------------

    async def admin(
        self,
        op: table_admin.AdminOp,
        table_id: str = "",
        *,
        seat: int | None = None,
        reveal: bool = False,
    ) -> dict[str, Any]:
        if op == "list":
            return {"tables": await self._admin_list()}
        call = AdminCall(
            id=secrets.token_hex(8), reply_node=self._node.node_id, op=op, table_id=table_id,
            seat=seat, reveal=reveal,
        )
        with self._awaiting(call.id) as future:
            routed = await self._routing.to_table_now(table_id, call.model_dump_json())
            if routed == -1:
                raise RemoteRefused("not_found", f"no table {table_id!r}")
            if not (isinstance(routed, int) and routed > 0):  # failing over, or owner gone
                raise RemoteRefused(
                    UNAVAILABLE, f"table {table_id!r} is moving to another server; try again"
                )
            reply = await self._admin_reply(future, f"the server of table {table_id!r}")
        assert reply.table is not None
        return reply.table

    async def _admin_list(self) -> list[dict[str, Any]]:
        """Every other node's tables (`admin.snapshot`), nodes in name order."""
        node = self._node
        nodes = await self._nodes()
        with contextlib.ExitStack() as calls:
            asked: list[tuple[str, asyncio.Future[Reply]]] = []
            for other in nodes:
                if other == node.node_id:
                    continue
                call = AdminCall(id=secrets.token_hex(8), reply_node=node.node_id, op="list")
                future = calls.enter_context(self._awaiting(call.id))
                asked.append((other, future))
                if await node.redis.publish(node.keys.channel(other), call.model_dump_json()) == 0:
                    future.set_result(Reply(id=call.id, table={"tables": []}))  # it just left
            tables: list[dict[str, Any]] = []
            for other, future in asked:
                reply = await self._admin_reply(future, f"node {other!r}")
                assert reply.table is not None
                tables += reply.table["tables"]
            return tables

    def answer_admin(self, call: AdminCall) -> None:
        """Run an admin command for another node, in a task of its own (it waits for the
        table's actor; the bus listener goes on meanwhile)."""
        node = self._node

        async def answer() -> None:
            try:
                if call.op != "list" and self._lost_here(call.table_id) and (
                    node.registry.get(call.table_id) is None
                ):
                    raise TableError(
                        UNAVAILABLE, f"table {call.table_id!r} is moving to another server"
                    )
                result = await table_admin.run(
                    node.registry, call.op, call.table_id, seat=call.seat, reveal=call.reveal
                )
                reply = Reply(id=call.id, table=result)
            except TableError as refused:
                reply = Reply(id=call.id, code=refused.code, message=refused.message)
            except Exception:
                log.exception("node %s: admin %s of table %s failed", node.node_id, call.op,
                              call.table_id)
                reply = Reply(
                    id=call.id, code="internal_error", message="something went wrong on our side"
                )
            node.publish(call.reply_node, reply.model_dump_json())

        task = asyncio.get_running_loop().create_task(answer(), name=f"admin-{call.id}")
        self.answering.add(task)
        task.add_done_callback(self.answering.discard)

    # --- replies ----------------------------------------------------------------------------

    def replied(self, reply: Reply) -> None:
        """A reply to one of this node's calls (a late one is dropped)."""
        future = self._calls.get(reply.id)
        if future is not None and not future.done():
            future.set_result(reply)

    @contextlib.contextmanager
    def _awaiting(self, call_id: str) -> Iterator[asyncio.Future[Reply]]:
        """The future the bus listener resolves with the reply to `call_id`, while it is
        awaited."""
        future: asyncio.Future[Reply] = asyncio.get_running_loop().create_future()
        self._calls[call_id] = future
        try:
            yield future
        finally:
            self._calls.pop(call_id, None)

    @staticmethod
    async def _reply(
        future: asyncio.Future[Reply], timeout: float, late: RemoteRefused
    ) -> Reply:
        """The reply, or `late` raised after `timeout` seconds; a refusal raised as such."""
        try:
            reply = await asyncio.wait_for(future, timeout)
        except TimeoutError:
            raise late from None
        if reply.code is not None or reply.table is None:
            raise RemoteRefused(reply.code or "internal_error", reply.message, reply.details)
        return reply

    async def _admin_reply(self, future: asyncio.Future[Reply], who: str) -> Reply:
        return await self._reply(future, ADMIN_CALL_TIMEOUT, RemoteRefused(
            UNAVAILABLE, f"{who} did not answer within {ADMIN_CALL_TIMEOUT:g} s; try again"
        ))
