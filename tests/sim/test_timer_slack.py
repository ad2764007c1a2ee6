"""Live mode: housekeeping timers of every engine come due together; nothing else waits for them."""

import asyncio
import math

from clusterviz.sim.engine import BACKGROUND_SLACK, Engine

# A slot of slack lasts 100 ms of wall time: long beside the event loop's delays on a busy machine.
SPEED = 10.0
GRID = BACKGROUND_SLACK / SPEED


async def _wake_times(engine: Engine, sleeps: list[tuple[float, bool]]) -> list[tuple[float, float]]:
    """(loop time, simulated time) at which each ``(seconds, background)`` sleep of ``engine`` ends."""
    loop = asyncio.get_running_loop()
    woke: dict[int, tuple[float, float]] = {}

    async def one(index: int, seconds: float, background: bool) -> None:
        await engine.sleep(seconds, background=background)
        woke[index] = (loop.time(), engine.now)

    tasks = [engine.spawn(f"sleeper-{i}", lambda i=i, s=s, b=b: one(i, s, b)) for i, (s, b) in enumerate(sleeps)]
    engine.start()
    try:
        await asyncio.gather(*tasks)
    finally:
        await engine.stop()
    return [woke[i] for i in range(len(sleeps))]


def _slot_ahead() -> tuple[float, float]:
    """The wall-clock boundary of the slot after next, and how many simulated seconds away it is."""
    now = asyncio.get_running_loop().time()
    boundary = (math.ceil(now / GRID) + 2) * GRID
    return boundary, (boundary - now) * SPEED


async def test_heartbeats_of_two_clusters_due_in_one_slot_fire_together_and_never_early():
    boundary, ahead = _slot_ahead()
    first = Engine("one", mode="live", speed=SPEED)
    second = Engine("two", mode="live", speed=SPEED)
    # Both due inside the last slot before the boundary, a fifth of a slot apart.
    early, late = ahead - 0.8 * BACKGROUND_SLACK, ahead - 0.2 * BACKGROUND_SLACK
    [(woke_first, sim_first)], [(woke_second, sim_second)] = await asyncio.gather(
        _wake_times(first, [(early, True)]), _wake_times(second, [(late, True)])
    )
    # The same turn of the event loop for both, at the slot's end: not before either was due.
    assert abs(woke_first - woke_second) < GRID / 10
    assert min(woke_first, woke_second) >= boundary - 1e-6
    assert sim_first >= early and sim_second >= late


async def test_a_timer_that_is_not_housekeeping_is_not_held_for_the_slot():
    boundary, ahead = _slot_ahead()
    engine = Engine("one", mode="live", speed=SPEED)
    due = ahead - 0.8 * BACKGROUND_SLACK
    [(woke, _)] = await _wake_times(engine, [(due, False)])
    assert woke < boundary


async def test_housekeeping_due_first_fires_no_later_than_work_due_inside_its_slot():
    boundary, ahead = _slot_ahead()
    engine = Engine("one", mode="live", speed=SPEED)
    heartbeat, pull = ahead - 0.8 * BACKGROUND_SLACK, ahead - 0.5 * BACKGROUND_SLACK
    (beat_woke, _), (pull_woke, _) = await _wake_times(engine, [(heartbeat, True), (pull, False)])
    # The image pull comes on time, and the heartbeat due before it is not kept behind it.
    assert pull_woke < boundary
    assert beat_woke <= pull_woke
