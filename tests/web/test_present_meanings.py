"""Every script button's answer has a meaning the presenter shows beside kubectl's words."""

from __future__ import annotations

import pytest
from django.utils import translation

from clusterviz.lessons import runner
from clusterviz.lessons.script import ACTION_KINDS, Action
from clusterviz.web import present


@pytest.mark.parametrize("kind", sorted(ACTION_KINDS))
def test_every_action_kind_has_a_meaning_in_both_languages(kind: str):
    action = Action(kind, "node02" if kind in runner.NODE_ACTIONS else "pod/x", "a=b")
    done = runner.Outcome(True, "done", action.kubectl())
    with translation.override("en"):
        english = present._meaning(action, done)
    with translation.override("zh-hans"):
        chinese = present._meaning(action, done)
    assert english and chinese and chinese != english
