"""Classes made before the lessons keep their preset: the old scenario keys become lesson slugs."""

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

from clusterviz.lessons import BY_SLUG

BEFORE = [("classroom", "0001_initial")]
AFTER = [("classroom", "0002_lesson_slugs")]


@pytest.mark.django_db(transaction=True)
def test_old_preset_keys_become_lesson_slugs():
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    apps = executor.loader.project_state(BEFORE).apps
    teacher = apps.get_model("auth", "User").objects.create(username="tina")
    classroom = apps.get_model("classroom", "Classroom")
    old = ["pod-anti-affinity", "balanced-allocation", "host-port", "scale-and-roll", "node-affinity"]
    for key in old:
        classroom.objects.create(slug=key, title=key, teacher=teacher, preset=key)

    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(AFTER)
    apps = executor.loader.project_state(AFTER).apps
    presets = dict(apps.get_model("classroom", "Classroom").objects.values_list("slug", "preset"))
    assert presets == {"pod-anti-affinity": "pod-affinity", "balanced-allocation": "resources",
                       "host-port": "ports-and-disks", "scale-and-roll": "scale-and-rollout",
                       "node-affinity": "node-affinity"}
    assert set(presets.values()) <= set(BY_SLUG)
