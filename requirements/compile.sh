#!/usr/bin/env sh
# Regenerates the lock files from pyproject.toml, with every file's sha256:
#   requirements/dev.txt      the runtime and dev dependencies: .ci/run installs it with
#                             --require-hashes before the README's test command
#   requirements/runtime.txt  the runtime dependencies alone, at dev.txt's versions: the
#                             Dockerfile installs it with --require-hashes
#   requirements/build.txt    pyproject.toml's build-system requires: the Dockerfile builds
#                             the project with these (--no-build-isolation)
# It needs uv (`pip install uv`; written with uv 0.13). A version already locked is kept
# while it still fits pyproject.toml, so running it after a change to pyproject.toml moves
# only what must move. To upgrade, pass uv's options on: `requirements/compile.sh -P uvicorn`
# for one package, `requirements/compile.sh -U` for all; then run the suite
# (tests/ops/test_uvicorn_shape.py first when uvicorn or websockets moved).
# The locks are for CPython 3.11 on Linux, x86-64 and arm64 alike (the Dockerfile's
# python:3.11-slim, CI's venv).
set -eu
cd "$(dirname "$0")/.."
common="--generate-hashes --python-version 3.11 --python-platform linux --quiet"
named="--custom-compile-command requirements/compile.sh"
uv pip compile pyproject.toml --extra dev $common $named -o requirements/dev.txt "$@"
uv pip compile pyproject.toml $common $named -c requirements/dev.txt -o requirements/runtime.txt
python3 -c 'import tomllib; print(*tomllib.load(open("pyproject.toml", "rb"))["build-system"]["requires"], sep="\n")' \
    | uv pip compile - $common $named -o requirements/build.txt "$@"
