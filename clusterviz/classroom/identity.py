"""Finding out who is asking (bearer token, signed-in user, or a student's signed cookie) and what a cluster is.

The sandbox cookie is signed with the project's secret key, so a student cannot
claim another sandbox by editing it.
"""

from __future__ import annotations

import time
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from django.core import signing
from django.db.models.signals import post_delete, post_save

from clusterviz.store import kv
from clusterviz.store.models import Cluster
from clusterviz.store.threads import in_thread

from .access import DEMO, READ, SANDBOX, Identity, Ownership, allows, permission
from .models import AccessToken, Classroom, Sandbox, token_digest

SANDBOX_COOKIE = "clusterviz-sandbox"
COOKIE_SALT = "clusterviz.classroom.sandbox"
TEACH_PERMISSION = "classroom.teach"
# Ownership changes only with a class, a sandbox or a cluster, and each change made in this process
# empties the cache at once (``_ownership_changed``): the cache spares two queries on most requests (a
# class applying at once asked them 606 times a burst with 2 s), and another web process's change is
# seen here within this many seconds.
OWNERSHIP_TTL = 10.0
_ownership_cache: dict[str, tuple[float, Ownership]] = {}


class InvalidToken(Exception):
    """A bearer token that matches no AccessToken."""


def sign_sandbox(sandbox_id: int) -> str:
    """The cookie value naming a student's sandbox."""
    return signing.get_cookie_signer(salt=SANDBOX_COOKIE + COOKIE_SALT).sign(str(sandbox_id))


def sandbox_id_from_cookie(value: str | None) -> int | None:
    """The sandbox a cookie names, or None when absent, tampered with or malformed."""
    if not value:
        return None
    try:
        return int(signing.get_cookie_signer(salt=SANDBOX_COOKIE + COOKIE_SALT).unsign(value))
    except (signing.BadSignature, ValueError):
        return None


def student(sandbox: Sandbox) -> Identity:
    """The identity of a sandbox's student."""
    return Identity(username=f"student:{sandbox.student}", sandbox=sandbox.cluster.name, classroom=sandbox.classroom_id)


async def user_identity(user: Any) -> Identity | None:
    """A signed-in Django user as an identity (None for anonymous users)."""
    if user is None or not user.is_authenticated:
        return None
    teacher = user.is_superuser or await user.ahas_perm(TEACH_PERMISSION)
    return Identity(username=user.get_username(), teacher=teacher)


async def identify(authorization: str, user: Any, sandbox_cookie: str | None) -> Identity:
    """Who is asking: a bearer token wins, then a signed-in user, then the sandbox cookie."""
    if authorization.lower().startswith("bearer "):
        token = authorization[7:].strip()
        row = (
            await AccessToken.objects.select_related("sandbox__cluster", "user")
            .filter(digest=token_digest(token))
            .afirst()
        )
        if row is None:
            raise InvalidToken
        if row.sandbox is not None:
            return student(row.sandbox)
        identity = await user_identity(row.user)
        assert identity is not None
        return identity
    identity = await user_identity(user)
    if identity is not None:
        return identity
    sandbox_id = sandbox_id_from_cookie(sandbox_cookie)
    if sandbox_id is not None:
        sandbox = await Sandbox.objects.select_related("cluster").filter(pk=sandbox_id).afirst()
        if sandbox is not None:
            return student(sandbox)
    return Identity()


async def ownership(cluster: str) -> Ownership:
    """Whether ``cluster`` is a class's demo, a student's sandbox, or neither."""
    now = time.monotonic()
    cached = _ownership_cache.get(cluster)
    if cached is not None and now - cached[0] < OWNERSHIP_TTL:
        return cached[1]
    owner = await _look_up_ownership(cluster)
    _ownership_cache[cluster] = (now, owner)
    return owner


def _owner_of(cluster: str) -> Ownership:
    """``ownership``'s queries, uncached."""
    sandbox = Sandbox.objects.filter(cluster__name=cluster).first()
    if sandbox is not None:
        return Ownership(SANDBOX, sandbox.classroom_id)
    classroom = Classroom.objects.filter(demo__name=cluster).first()
    if classroom is not None:
        return Ownership(DEMO, classroom.pk, classroom.public)
    return Ownership()


# In a store thread, which keeps its connection: asked on most API requests, the queries would otherwise
# open and close a connection of their own each time (Django closes a request's connections when it ends).
_look_up_ownership = in_thread(_owner_of)


def _ownership_changed(sender: Any, **kwargs: Any) -> None:
    """A class, sandbox or cluster was saved or deleted here: whatever ownership was cached may be wrong."""
    forget_ownership()


for _model in (Classroom, Sandbox, Cluster):
    post_save.connect(_ownership_changed, sender=_model, dispatch_uid=f"clusterviz-ownership-{_model.__name__}")
    post_delete.connect(_ownership_changed, sender=_model, dispatch_uid=f"clusterviz-ownership-{_model.__name__}")


def forget_ownership(cluster: str = "") -> None:
    """Drop cached ownership (after a class or sandbox changed in this process)."""
    if cluster:
        _ownership_cache.pop(cluster, None)
    else:
        _ownership_cache.clear()


async def readable_clusters(request: Any) -> list[str]:
    """The names of the clusters the page's visitor may read (the home page lists no others)."""
    try:
        identity = await identify(
            request.headers.get("Authorization", ""), await request.auser(), request.COOKIES.get(SANDBOX_COOKIE)
        )
    except InvalidToken:
        identity = Identity()
    names = await sync_to_async(kv.cluster_names)()
    mode = classroom_mode()
    return [name for name in names if allows(permission(identity, name, await ownership(name), mode), READ)]


def classroom_mode() -> bool:
    """Whether clusters outside any class are closed to all but teachers."""
    return settings.CLUSTERVIZ["ACCESS"] == "classroom"
