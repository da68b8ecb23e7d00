"""The HTTP and WebSocket edge: thin, validating, routing."""
