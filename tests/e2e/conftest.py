"""Every message an e2e client receives must be valid by the published protocol schema."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests import contract


@pytest.fixture(autouse=True)
def _server_messages_follow_the_schema() -> Iterator[None]:
    contract.VIOLATIONS.clear()
    contract.SEEN.clear()
    yield
    assert contract.VIOLATIONS == [], contract.VIOLATIONS[:5]
