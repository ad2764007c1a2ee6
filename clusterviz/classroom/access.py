"""Who may read and write which cluster: the rules, as a pure function.

- A teacher (a user with the ``classroom.teach`` permission, or a superuser) may
  write every cluster.
- A student may write their own sandbox, read their class's demo cluster, and
  nothing of anyone else's.
- Anybody may read a class's demo cluster that its teacher made public.
- Clusters outside any class (the embedded ``demo``) are open to everybody,
  unless ``CLUSTERVIZ_ACCESS=classroom``, where only teachers see them.
"""

from __future__ import annotations

from dataclasses import dataclass

READ = "read"
WRITE = "write"
ANONYMOUS = "system:anonymous"

# What kind of cluster a name is.
UNOWNED = ""
DEMO = "demo"
SANDBOX = "sandbox"


@dataclass(frozen=True)
class Identity:
    """Who is asking. ``username`` is how Kubernetes-style messages name them."""

    username: str = ANONYMOUS
    teacher: bool = False
    sandbox: str = ""  # a student's own cluster
    classroom: int | None = None  # a student's class

    @property
    def anonymous(self) -> bool:
        """Nobody we know."""
        return self.username == ANONYMOUS


@dataclass(frozen=True)
class Ownership:
    """What a cluster is in the classroom: unowned, a class's demo, or a student's sandbox."""

    kind: str = UNOWNED
    classroom: int | None = None
    public: bool = False


def permission(identity: Identity, cluster: str, owner: Ownership, classroom_mode: bool) -> str | None:
    """READ, WRITE or None (no access at all) for ``identity`` on ``cluster``."""
    if identity.teacher:
        return WRITE
    if owner.kind == SANDBOX:
        return WRITE if identity.sandbox == cluster else None
    if owner.kind == DEMO:
        in_class = identity.classroom is not None and identity.classroom == owner.classroom
        return READ if in_class or owner.public else None
    return None if classroom_mode else WRITE


def allows(granted: str | None, wanted: str) -> bool:
    """Whether a granted permission covers the wanted one (WRITE covers READ)."""
    return granted == WRITE or (granted == READ and wanted == READ)


TEACHERS_GROUP = "clusterviz:teachers"
STUDENTS_GROUP = "clusterviz:students"


def groups_of(identity: Identity) -> tuple[str, ...]:
    """The groups a Kubernetes authenticator would give the identity (``kubectl auth whoami``)."""
    if identity.anonymous:
        return ("system:unauthenticated",)
    extra = (TEACHERS_GROUP,) if identity.teacher else (STUDENTS_GROUP,) if identity.sandbox else ()
    return (*extra, "system:authenticated")
