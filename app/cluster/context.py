"""What every part of a node shares (`app.cluster.node.RedisNetwork` builds it once): the
node's id, its Redis connection and keys, its one ordered writer (`writer.Writer`), and
the registry of the tables it serves.
"""

from __future__ import annotations

from dataclasses import dataclass

from redis.asyncio import Redis

from app.cluster.keys import Keys
from app.cluster.writer import Writer
from app.tables.registry import TableRegistry


@dataclass(frozen=True, slots=True)
class NodeContext:
    node_id: str
    redis: Redis
    keys: Keys
    writer: Writer
    registry: TableRegistry

    def publish(self, node_id: str, payload: str) -> None:
        """Queue `payload` for node `node_id`'s channel, in the writer's order."""
        self.writer.publish(self.keys.channel(node_id), payload)
