"""Private rooms (好友房): a table found by a code, the owner's house rules, a session of a
fixed length, a dissolve vote and the session scoreboard (大结算). docs/rooms.md."""
