"""The "class of 100" load: N open cluster pages (websockets) while W clients write, on a real Daphne.

Run: .venv/bin/python bench/websocket_load.py [--pages 100] [--writers 20] [--seconds 60] [--mode live]
Prints flow messages delivered per second to all pages, the delivery latency (p50/p99, from a write's
response and from its request to a page receiving the write's etcd acknowledgement), writes per second,
and whether every page's stream was gap-free. The scenario is tests/load/wsload.py (shared with the test).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--pages", type=int, default=100)
    parser.add_argument("--writers", type=int, default=20)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument(
        "--mode", default="live", choices=["live", "fast-forward"], help="the simulation mode the cluster runs in"
    )
    parser.add_argument("--nodes", type=int, default=3)
    args = parser.parse_args()
    from tests.livesim import LiveServer
    from tests.load.wsload import Scenario

    with tempfile.TemporaryDirectory() as tmp:
        server = LiveServer(Path(tmp), {"CLUSTERVIZ_WRITE_RATE": "0", "CLUSTERVIZ_DEFAULT_MODE": args.mode})
        server.start()
        try:
            result = server.manage("createcluster", "bench", "--nodes", str(args.nodes))
            if result.returncode != 0:
                raise SystemExit(result.stderr)
            figures = asyncio.run(Scenario(server.url, "bench", args.pages, args.writers, args.seconds).run())
        finally:
            server.stop()
    print("\n".join(figures.lines()))
    for problem in (figures.gaps + figures.lagging)[:10]:
        print("  ", problem)


if __name__ == "__main__":
    main()
