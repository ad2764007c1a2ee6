"""The classroom lessons: a known cluster, a manifest and a script of steps, in English and Chinese.

``LESSONS`` holds them in course order and ``BY_SLUG`` by their slugs; ``runner``
loads a lesson into a cluster and performs its actions as kubectl would.
"""

from __future__ import annotations

from .course import LESSONS
from .script import Action, Lesson, NodeSpec, Step

BY_SLUG: dict[str, Lesson] = {lesson.slug: lesson for lesson in LESSONS}

__all__ = ["BY_SLUG", "LESSONS", "Action", "Lesson", "NodeSpec", "Step"]
