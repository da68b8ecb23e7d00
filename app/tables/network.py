"""What this node asks of the network of nodes it may belong to (DESIGN.md, "The shell depends
downwards"): the tables declare the interfaces, one concern each, and the cluster implements
them (app/cluster); each has its default for a node alone (no `REDIS_URL`), where every
table and every socket is here:

| interface | concern | alone | the cluster |
|---|---|---|---|
| `Delivery` (app/tables/sockets.py) | sockets on other nodes | `OneNode` | `Routing` |
| `SeatClaims` (app/tables/seating.py) | each account's one seat | `OneNodeClaims` | `Calls` |
| `Directory` (app/tables/directory.py) | tables listed, journaled, leased; the fence | `OneNodeDirectory` | `Ownership` |
| `RemoteTables` (app/tables/remote.py) | the lobby's and admins' calls to other nodes | `NoOtherTables` | `Calls` |
| `Boards` (app/store/ranks.py) | leaderboards beside the database | `DatabaseBoards` | `Boards` |
| `Membership` (here) | joining and leaving | `Alone` | `RedisNetwork` |

`Network` holds one of each; the registry hands each part to what uses it, and the API reads
the others from the app's state (`app.state.network`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Protocol

from app.store.ranks import Boards, DatabaseBoards
from app.tables.directory import Directory, OneNodeDirectory
from app.tables.remote import NoOtherTables, RemoteTables
from app.tables.seating import OneNodeClaims, SeatClaims
from app.tables.sockets import Delivery, OneNode


class Membership(Protocol):
    """Joining the network and leaving it."""

    async def start(self) -> None:
        """Join (the cluster: connect, subscribe, start watching the directory)."""

    async def stop(self) -> None:
        """Leave: hand this node's tables over (the registry has stopped their actors)."""


class Alone:
    """`Membership` of a node alone: nothing to join."""

    async def start(self) -> None:
        return

    async def stop(self) -> None:
        return


@dataclass
class Network:
    """The network's parts, one per concern (the module's table)."""

    delivery: Delivery = field(default_factory=OneNode)
    claims: SeatClaims = field(default_factory=OneNodeClaims)
    directory: Directory = field(default_factory=OneNodeDirectory)
    tables: RemoteTables = field(default_factory=NoOtherTables)
    boards: Boards = field(default_factory=DatabaseBoards)
    membership: Membership = field(default_factory=Alone)

    @property
    def remote(self) -> bool:
        """True: other nodes exist (a socket or a table may be elsewhere)."""
        return self.delivery.remote
