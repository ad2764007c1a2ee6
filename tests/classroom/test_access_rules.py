"""The access rules as a table: teacher, student, anonymous against unowned, demo and sandbox clusters."""

import pytest

from clusterviz.classroom.access import DEMO, READ, SANDBOX, WRITE, Identity, Ownership, allows, permission
from clusterviz.classroom.ratelimit import RateLimiter

TEACHER = Identity("alice", teacher=True)
ANN = Identity("student:ann", sandbox="week3-aaaaaa", classroom=1)
BOB_OTHER_CLASS = Identity("student:bob", sandbox="other-bbbbbb", classroom=2)
NOBODY = Identity()

OPEN_DEMO = Ownership()
CLASS_DEMO = Ownership(DEMO, classroom=1)
PUBLIC_DEMO = Ownership(DEMO, classroom=1, public=True)
ANNS = Ownership(SANDBOX, classroom=1)


@pytest.mark.parametrize(
    ("who", "cluster", "owner", "classroom_mode", "expected"),
    [
        (TEACHER, "week3-aaaaaa", ANNS, False, WRITE),
        (TEACHER, "demo", OPEN_DEMO, True, WRITE),
        (ANN, "week3-aaaaaa", ANNS, False, WRITE),
        (ANN, "week3-demo01", CLASS_DEMO, False, READ),
        (ANN, "week3-cccccc", ANNS, False, None),  # a classmate's sandbox
        (BOB_OTHER_CLASS, "week3-demo01", CLASS_DEMO, False, None),
        (BOB_OTHER_CLASS, "week3-demo01", PUBLIC_DEMO, False, READ),
        (NOBODY, "week3-demo01", CLASS_DEMO, False, None),
        (NOBODY, "week3-demo01", PUBLIC_DEMO, False, READ),
        (NOBODY, "week3-aaaaaa", ANNS, False, None),
        (NOBODY, "demo", OPEN_DEMO, False, WRITE),  # the single-laptop default
        (NOBODY, "demo", OPEN_DEMO, True, None),
        (ANN, "demo", OPEN_DEMO, True, None),
    ],
)
def test_permission(who, cluster, owner, classroom_mode, expected):
    assert permission(who, cluster, owner, classroom_mode) == expected


def test_write_covers_read_and_nothing_covers_nothing():
    assert allows(WRITE, READ) and allows(WRITE, WRITE) and allows(READ, READ)
    assert not allows(READ, WRITE) and not allows(None, READ)


def test_the_rate_limiter_allows_a_burst_then_the_rate():
    limiter = RateLimiter(rate=2, burst=3)
    assert [limiter.allow("ann", now=0.0) for _ in range(3)] == [0, 0, 0]
    assert limiter.allow("ann", now=0.0) == pytest.approx(0.5)
    assert limiter.allow("bob", now=0.0) == 0  # one caller's flood does not slow another
    assert limiter.allow("ann", now=0.5) == 0
    assert RateLimiter(rate=0, burst=0).allow("ann") == 0  # 0 turns it off
