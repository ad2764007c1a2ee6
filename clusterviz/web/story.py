"""One object's story: the creation flow 1-13 of a single Pod, picked out of the interleaved trace.

The trace of a lesson interleaves every component's hops: three replicas, the
Deployment's ReplicaSet round, status updates and heartbeats. The presenter
follows one Pod and tells its story as *beats*, each number once and in order:
1-3 the client's write, 4-5 the controller manager's watch, the Deployment ->
ReplicaSet round as the labelled sub-hops 6a-8a (and its watch, 4a-5a), 6-8 the Pod's
creation, 9 the scheduler's watch (9a: the victims it deletes when preemption makes room), 10-11 the
binding, 12 the kubelet's watch, 12a the container runtime's work, and 13 the status that says Running.

Pure functions over ``flowmessages`` items (dicts); no I/O.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

# What the followed object can be: a workload whose controller makes the Pod, or a Pod a client wrote.
OWNER_KINDS = ("Deployment", "ReplicaSet", "ReplicationController", "DaemonSet", "StatefulSet", "Job")
# The last hop of the flow: the progress reads "k / 13".
LAST_HOP = 13
# The hop at which a write is stored and answered (kubectl -> API server -> etcd -> API server).
WRITTEN = 3

Message = dict[str, Any]


@dataclass(frozen=True)
class Ref:
    """A kind and name (the namespace of a lesson's objects is implied)."""

    kind: str
    name: str

    @classmethod
    def parse(cls, text: str) -> Ref | None:
        """``"Deployment/myapp"`` -> Ref; None when the text is not ``Kind/name``."""
        kind, sep, name = text.partition("/")
        return cls(kind, name) if sep and kind and name else None

    def __str__(self) -> str:
        return f"{self.kind}/{self.name}"


@dataclass
class Beat:
    """One press of Next: the hops of one story number (or sub-hop), delivered together."""

    label: str
    number: int
    messages: list[Message] = field(default_factory=list)
    complete: bool = False

    @property
    def seqs(self) -> list[int]:
        return [int(m["seq"]) for m in self.messages]

    def to_dict(self) -> dict[str, Any]:
        """JSON shape for the presenter page."""
        return {"label": self.label, "number": self.number, "seqs": self.seqs, "complete": self.complete}


@dataclass
class Story:
    """The beats of one followed object, as far as the trace has got."""

    root: Ref | None
    pod: str = ""
    beats: list[Beat] = field(default_factory=list)
    # Numbers this story never reaches (a pinned Pod skips the scheduler's 9-11).
    skipped: tuple[int, ...] = ()

    @property
    def done(self) -> list[Beat]:
        """The complete beats: what Next and Back move through."""
        return [b for b in self.beats if b.complete]

    @property
    def last(self) -> int:
        """The story's last hop: 13 when the object becomes a Pod on a node; 3, the write itself, for any other
        (a definition, a ConfigMap: no controller turns it into Pods)."""
        makes_pods = self.root is None or self.root.kind == "Pod" or self.root.kind in OWNER_KINDS
        return LAST_HOP if makes_pods else WRITTEN

    @property
    def progress(self) -> int:
        """The highest hop number told so far (the "k" of "k / 13")."""
        return max((b.number for b in self.done), default=0)

    def story_seqs(self) -> set[int]:
        return {s for b in self.beats for s in b.seqs}


def _obj(message: Message) -> tuple[str, str]:
    obj = message.get("object") or {}
    return str(obj.get("kind", "")), str(obj.get("name", ""))


def _same(name: str, wanted: str) -> bool:
    # A create request made with generateName names its object "prefix-*" until the API server names it.
    return name == wanted or (name.endswith("*") and wanted.startswith(name[:-1]))


def _child_of(name: str, owner: str) -> bool:
    return name.startswith(owner + "-") and len(name) > len(owner) + 1


class _Cursor:
    """Walks the trace in order, claiming each message for at most one beat."""

    def __init__(self, messages: list[Message]) -> None:
        self.messages = messages
        self.at = 0

    def find(self, test: Callable[[Message], bool]) -> tuple[int, Message] | None:
        for index in range(self.at, len(self.messages)):
            if test(self.messages[index]):
                return index, self.messages[index]
        return None

    def take(self, test: Callable[[Message], bool]) -> Message | None:
        found = self.find(test)
        if found is None:
            return None
        self.at = found[0] + 1
        return found[1]


def _step_of(kind: str, name: str, step: int, **extra: str) -> Callable[[Message], bool]:
    def test(m: Message) -> bool:
        k, n = _obj(m)
        return m.get("step") == step and k == kind and _same(n, name) and all(m.get(a) == v for a, v in extra.items())

    return test


def first_pod(messages: Iterable[Message], root: Ref) -> str:
    """The first Pod made for ``root``: its own name for a Pod, else the first Pod its controllers create."""
    if root.kind == "Pod":
        return root.name
    owners = {root.name}
    for m in messages:
        kind, name = _obj(m)
        if m.get("step") not in (6, 7) or name.endswith("*"):
            continue
        if kind == "ReplicaSet" and any(_child_of(name, o) for o in owners):
            owners.add(name)
        elif kind == "Pod" and any(_child_of(name, o) for o in owners):
            return name
    return ""


def owners_of(messages: Iterable[Message], pod: str) -> tuple[Ref | None, str]:
    """(the workload at the top, the ReplicaSet in between or "") of a Pod, from the names in the trace."""
    workloads: dict[str, str] = {}
    for m in messages:
        kind, name = _obj(m)
        if kind in OWNER_KINDS and m.get("step") in (1, 6) and not name.endswith("*"):
            workloads.setdefault(name, kind)
    parent = max((n for n in workloads if _child_of(pod, n)), key=len, default="")
    if not parent:
        return None, ""
    if workloads[parent] == "ReplicaSet":
        top = max((n for n, k in workloads.items() if k == "Deployment" and _child_of(parent, n)), key=len, default="")
        if top:
            return Ref("Deployment", top), parent
    return Ref(workloads[parent], parent), ""


def build(messages: list[Message], root: Ref | None, pod: str = "") -> Story:
    """The story of ``pod`` (default: the first Pod made for ``root``) in ``messages``, oldest first.

    ``root`` is what the lesson's client wrote; when a Pod is picked, its owners are found from the
    names in the trace (a Deployment's Pod is named ``<deployment>-<hash>-<suffix>``).
    """
    if pod and (root is None or root.kind == "Pod" or not _child_of(pod, root.name)):
        owner, _rs = owners_of(messages, pod)
        root = owner or Ref("Pod", pod)
    if root is None:
        return Story(None)
    pod = pod or first_pod(messages, root)
    story = Story(root, pod)
    cursor = _Cursor(messages)

    def single(label: str, number: int, test: Callable[[Message], bool]) -> bool:
        found = cursor.take(test)
        if found is not None:
            story.beats.append(Beat(label, number, [found], complete=True))
        return found is not None

    head = root if root.kind != "Pod" or not pod else Ref("Pod", pod)
    for number in (1, 2, 3):
        if not single(str(number), number, _step_of(head.kind, head.name, number)):
            return story
    if root.kind != "Pod":
        if not single("4", 4, _step_of(root.kind, root.name, 4)) or not single("5", 5, _step_of(root.kind, root.name, 5)):
            return story
        if root.kind == "Deployment" and not _replicaset_round(story, cursor, messages, root):
            return story
        if not pod:
            return story
        for number in (6, 7, 8):
            if not single(str(number), number, _step_of("Pod", pod, number)):
                return story
    _after_pod_exists(story, cursor, pod)
    return story


def _replicaset_round(story: Story, cursor: _Cursor, messages: list[Message], root: Ref) -> bool:
    """6a-8a: the Deployment controller creates the ReplicaSet; then (4a-5a) its event reaches the ReplicaSet
    controller. One beat: the class sees the round once, numbered as sub-hops, before the Pod's own 6-8."""
    found = cursor.find(lambda m: _obj(m)[0] == "ReplicaSet" and m.get("step") == 6 and _child_of(_obj(m)[1], root.name))
    if found is None:
        return False
    replicaset = _obj(found[1])[1]
    beat = Beat("6a–8a", 5)
    story.beats.append(beat)
    for number in (6, 7, 8):
        m = cursor.take(_step_of("ReplicaSet", replicaset, number))
        if m is None:
            return False
        beat.messages.append(m)
    for number in (4, 5):
        m = cursor.take(_step_of("ReplicaSet", replicaset, number))
        if m is None:
            return False
        beat.messages.append(m)
    beat.complete = True
    return True


def _delivered_to_kubelet(pod: str) -> Callable[[Message], bool]:
    return lambda m: m.get("step") == 12 and _obj(m) == ("Pod", pod) and m.get("from") == "apiserver"


def _to_runtime(pod: str) -> Callable[[Message], bool]:
    return lambda m: _obj(m) == ("Pod", pod) and str(m.get("to", "")).startswith("runtime/")


def _status_report(pod: str) -> Callable[[Message], bool]:
    return lambda m: m.get("step") == 12 and _obj(m) == ("Pod", pod) and m.get("to") == "apiserver"


def _after_pod_exists(story: Story, cursor: _Cursor, pod: str) -> None:
    """9-13: the scheduler (unless the Pod is pinned), the kubelet, the runtime, the status."""
    nine = cursor.find(_step_of("Pod", pod, 9))
    twelve = cursor.find(_delivered_to_kubelet(pod))
    pinned = twelve is not None and (nine is None or nine[0] > twelve[0])
    if pinned:
        story.skipped = (9, 10, 11)
    else:
        scheduler = cursor.take(_step_of("Pod", pod, 9))
        if scheduler is None:
            return
        story.beats.append(Beat("9", 9, [scheduler], complete=True))
        _preemption(story, cursor, pod)
        bind = Beat("10", 10)
        story.beats.append(bind)
        request = cursor.take(lambda m: m.get("step") == 10 and _obj(m) == ("Binding", pod))
        if request is None:
            return
        bind.messages.append(request)
        write = cursor.take(_step_of("Pod", pod, 10))
        if write is None:
            return
        bind.messages.append(write)
        bind.complete = True
        stored = cursor.take(_step_of("Pod", pod, 11))
        if stored is None:
            return
        story.beats.append(Beat("11", 11, [stored], complete=True))
    kubelet = cursor.take(_delivered_to_kubelet(pod))
    if kubelet is None:
        return
    story.beats.append(Beat("12", 12, [kubelet], complete=True))
    runtime = Beat("12a", 12)
    story.beats.append(runtime)
    # The runtime's work ends with the start of the Pod's last container; the story tells it as one beat.
    while True:
        m = cursor.take(_to_runtime(pod))
        if m is None:
            return
        runtime.messages.append(m)
        if m.get("verb") == "start" and _status_comes_first(cursor, pod):
            break
    runtime.complete = True
    status = Beat("13", 13)
    story.beats.append(status)
    for test in (
        _status_report(pod),
        _step_of("Pod", pod, 13, to="etcd"),
        _step_of("Pod", pod, 13, to="apiserver"),
    ):
        m = cursor.take(test)
        if m is None:
            return
        status.messages.append(m)
    status.complete = True


def _preemption(story: Story, cursor: _Cursor, pod: str) -> None:
    """9a: when no node fit, the scheduler's deletes of the victims preemption chose, before the Pod's binding."""
    binding = cursor.find(lambda m: m.get("step") == 10 and _obj(m) == ("Binding", pod))
    end = binding[0] if binding is not None else len(cursor.messages)
    deletes = [
        index
        for index in range(cursor.at, end)
        if cursor.messages[index].get("from") == "scheduler"
        and cursor.messages[index].get("verb") == "delete"
        and _obj(cursor.messages[index])[0] == "Pod"
    ]
    if deletes:
        story.beats.append(Beat("9a", 9, [cursor.messages[i] for i in deletes], complete=True))
        cursor.at = deletes[-1] + 1


def _status_comes_first(cursor: _Cursor, pod: str) -> bool:
    """After a container's start: whether the runtime has no more to do for the Pod before its status report.

    When neither has happened yet (the trace ends here) the start is taken as the last one, as it is
    for every one-container Pod.
    """
    runtime = cursor.find(_to_runtime(pod))
    if runtime is None:
        return True
    status = cursor.find(_status_report(pod))
    return status is not None and status[0] < runtime[0]

