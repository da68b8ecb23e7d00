"""`python -m app.loadtest`: bot clients over real WebSockets against a server on this
machine, and the same clients against a bare echo server, in one run (see `run.py`)."""
