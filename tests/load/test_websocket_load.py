"""A class of 100 on one cluster: 100 open pages and 20 writers for a minute, on a real Daphne process.

No write may fail with a 5xx, and every page must receive the cluster's flow messages in order with
no gap (each carries the bus's sequence number), up to the last one. The delivery latency and the
throughput are printed (``-s`` shows them) for the issue's figures; the scenario is tests/load/wsload.py.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.livesim import LiveServer
from tests.load.wsload import Scenario

CLUSTER = "classroom"
PAGES = 100
WRITERS = 20
DURATION_SECONDS = 60.0


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[LiveServer]:
    """A Daphne of its own (no other test's traffic), simulating in live mode as a classroom does.

    The per-address write limit is off: twenty writers on one loopback address stand for twenty students.
    """
    live = LiveServer(tmp_path_factory.mktemp("load"), {"CLUSTERVIZ_WRITE_RATE": "0"})
    live.start()
    result = live.manage("createcluster", CLUSTER, "--nodes", "3")
    assert result.returncode == 0, result.stderr
    yield live
    live.stop()


@pytest.mark.timeout(DURATION_SECONDS + 240)
async def test_a_hundred_pages_get_every_flow_message_in_order_while_twenty_clients_write(server: LiveServer):
    figures = await Scenario(server.url, CLUSTER, PAGES, WRITERS, DURATION_SECONDS).run()
    print("\n" + "\n".join(figures.lines()))
    assert figures.writes > 0 and figures.flow_messages > 0
    assert figures.server_errors == 0, figures.statuses
    assert figures.gaps == [], figures.gaps[:20]
    assert figures.lagging == [], figures.lagging[:20]
    assert figures.missing_acks == 0
