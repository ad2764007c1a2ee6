"""Creating a class's clusters: the teacher's demo, a student's sandbox, a preset pushed to every sandbox."""

from __future__ import annotations

import secrets

from asgiref.sync import sync_to_async
from django.contrib.auth.models import User

from clusterviz.api import errors
from clusterviz.api.bootstrap import create_cluster
from clusterviz.api.client import Client
from clusterviz.api.rbac_bootstrap import CLASS_READERS, class_readers_binding, reader_subject, sandbox_owner_binding
from clusterviz.lessons import BY_SLUG, Lesson, runner
from clusterviz.store.models import Cluster

from . import identity
from .identity import forget_ownership
from .models import Classroom, Sandbox

SUFFIX_BYTES = 3  # six hex digits after the class slug: sandbox names are not guessable in a class of 100


def lesson_of(slug: str) -> Lesson:
    """The preset lesson called ``slug`` (KeyError when there is none)."""
    return BY_SLUG[slug]


async def _new_cluster(prefix: str) -> Cluster:
    while True:
        name = f"{prefix}-{secrets.token_hex(SUFFIX_BYTES)}"
        if await create_cluster(name):
            return await Cluster.objects.aget(name=name)


async def create_classroom(slug: str, title: str, teacher: User, preset: str, public: bool = False) -> Classroom:
    """A class with a fresh demo cluster of the teacher's, loaded with ``preset``."""
    lesson = lesson_of(preset)
    demo = await _new_cluster(slug)
    classroom = await Classroom.objects.acreate(
        slug=slug, title=title, teacher=teacher, demo=demo, preset=preset, public=public
    )
    # The classroom's rule for the demo, as RBAC states it: the class's students (or anybody) read it.
    await Client(demo.name, "kube-apiserver", simulated=False).create(class_readers_binding(public))
    forget_ownership(demo.name)
    await runner.load(demo.name, lesson)
    return classroom


async def create_sandbox(classroom: Classroom, student: str) -> Sandbox:
    """A student's own cluster, reset to the class's preset (in step mode, as a preset leaves it)."""
    cluster = await _new_cluster(classroom.slug)
    sandbox = await Sandbox.objects.acreate(classroom=classroom, cluster=cluster, student=student)
    # The classroom's rule for a sandbox, as RBAC states it: its student is its admin.
    username = identity.student(sandbox).username
    await Client(cluster.name, "kube-apiserver", simulated=False).create(sandbox_owner_binding(username))
    demo = await Cluster.objects.filter(demo_of=classroom).values_list("name", flat=True).afirst()
    if demo is not None:  # a class whose demo was deleted has no demo to read
        await _add_reader(demo, username)
    forget_ownership(cluster.name)
    await runner.load(cluster.name, lesson_of(classroom.preset))
    return sandbox


async def _add_reader(demo: str, username: str, attempts: int = 5) -> None:
    """The student joins the demo's readers binding (a class made before it had one gets it now).

    Students join at once: each adds itself to the binding it read, and reads again if another got there first.
    """
    client = Client(demo, "kube-apiserver", simulated=False)
    for _ in range(attempts):
        binding = await client.get_or_none("clusterrolebindings", CLASS_READERS)
        if binding is None:
            binding = class_readers_binding(False)
        subjects = [*(binding.get("subjects") or []), reader_subject(username)]
        try:
            if "resourceVersion" in binding.get("metadata", {}):
                await client.update({**binding, "subjects": subjects})
            else:
                await client.create({**binding, "subjects": subjects})
            return
        except errors.StatusError as exc:
            if exc.code != 409:
                raise


async def push_preset(classroom: Classroom, preset: str) -> int:
    """Reset every sandbox of the class to ``preset`` and make it the class's preset; returns how many."""
    lesson = lesson_of(preset)
    classroom.preset = preset
    await sync_to_async(classroom.save)(update_fields=["preset"])
    names = [name async for name in Sandbox.objects.filter(classroom=classroom).values_list("cluster__name", flat=True)]
    for name in names:
        await runner.load(name, lesson)
    return len(names)
