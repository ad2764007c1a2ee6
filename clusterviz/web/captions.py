"""Plain-language captions of bus messages, in the page's language.

The trace's ``summary`` is the simulator's precise English log line. A caption
retells the same hop for the class: ``what`` (who sends what to whom) and
``why`` (what this hop is for in the creation flow, hops 1-13 of MISSION.md).
Both go through Django's i18n, so a Chinese page gets Chinese captions.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from django.http import HttpRequest
from django.http.cookie import parse_cookie
from django.utils import translation
from django.utils.functional import Promise
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

from .language import chinese

CLIENTS = frozenset({"kubectl", "client", "dashboard"})
# Controllers run inside the controller manager; a trace may name the controller itself.
CONTROLLERS = ("-controller", "controller-manager", "garbage-collector")

# The names the mode buttons show for the simulation's modes (the values the API takes).
MODE_NAMES = {
    "live": gettext_lazy("live"),
    "paused": gettext_lazy("paused"),
    "step": gettext_lazy("step mode"),
    "fast-forward": gettext_lazy("fast-forward"),
}

VERBS = {
    "create": gettext_lazy("create"),
    "update": gettext_lazy("update"),
    "patch": gettext_lazy("patch"),
    "delete": gettext_lazy("delete"),
    "bind": gettext_lazy("bind"),
    "write": gettext_lazy("write"),
    "ack": gettext_lazy("stored"),
    "watch": gettext_lazy("watch"),
    "watch added": gettext_lazy("event: added"),
    "watch modified": gettext_lazy("event: modified"),
    "watch deleted": gettext_lazy("event: deleted"),
    "pull": gettext_lazy("pull image"),
    "start": gettext_lazy("start container"),
    "stop": gettext_lazy("stop"),
    "exit": gettext_lazy("container exits"),
}

# The reason for each numbered hop whose meaning does not depend on who sends it.
WHY_BY_STEP = {
    1: gettext_lazy("Every change starts as a request to the API server, the only door into the cluster."),
    2: gettext_lazy("The API server validates the object and stores it in etcd; no other component talks to etcd."),
    3: gettext_lazy("etcd confirms the write. Only now is the object created, and the API server answers the client."),
    4: gettext_lazy(
        "The controller manager keeps a watch open on the API server (list-watch): it listed once and "
        "now waits for changes."
    ),
    5: gettext_lazy("The API server pushes the change down that watch, so the controller manager reacts at once."),
    9: gettext_lazy("The scheduler watches for Pods without a node. Now it filters and scores the nodes to pick one."),
    11: gettext_lazy("etcd confirms the binding; every watcher now sees which node the Pod is on."),
}


# What the simulator's timers do, as its status names them ("what" of status.next): the simulator's English
# and its translation, with the same named groups.
TIMERS: tuple[tuple[re.Pattern[str], Promise], ...] = (
    (re.compile(r"kubelet on (?P<node>\S+) sends its heartbeat"), gettext_lazy("kubelet on %(node)s sends its heartbeat")),
    (re.compile(r"image pull on (?P<node>\S+) finishes"), gettext_lazy("image pull on %(node)s finishes")),
    (re.compile(r"image check on (?P<node>\S+) finishes"), gettext_lazy("image check on %(node)s finishes")),
    (
        re.compile(r'container "(?P<container>[^"]+)" on (?P<node>\S+) starts'),
        gettext_lazy('container "%(container)s" on %(node)s starts'),
    ),
    (
        re.compile(r'container "(?P<container>[^"]+)" on (?P<node>\S+) stops'),
        gettext_lazy('container "%(container)s" on %(node)s stops'),
    ),
    (
        re.compile(r"the node controller checks the nodes' heartbeats"),
        gettext_lazy("the node controller checks the nodes' heartbeats"),
    ),
    (
        re.compile(r"the controller manager lists (?P<plural>\S+) again"),
        gettext_lazy("the controller manager lists %(plural)s again"),
    ),
    (
        re.compile(r"the taint eviction controller deletes Pod (?P<key>\S+)"),
        gettext_lazy("the taint eviction controller deletes Pod %(key)s"),
    ),
    (
        re.compile(r"the taint eviction controller retries deleting Pod (?P<key>\S+)"),
        gettext_lazy("the taint eviction controller retries deleting Pod %(key)s"),
    ),
    (re.compile(r"(?P<controller>\S+) requeues (?P<key>\S+)"), gettext_lazy("%(controller)s requeues %(key)s")),
    (
        re.compile(r'container "(?P<container>[^"]+)" of (?P<pod>\S+) exits'),
        gettext_lazy('container "%(container)s" of %(pod)s exits'),
    ),
    (re.compile(r"the scheduler flushes unschedulable Pods"), gettext_lazy("the scheduler flushes unschedulable Pods")),
    (re.compile(r"a scheduling backoff ends"), gettext_lazy("a scheduling backoff ends")),
)


def timer(what: str) -> str:
    """What a timer of the simulator does, in the active language (as it is when this table does not know it)."""
    for pattern, translated in TIMERS:
        match = pattern.fullmatch(what)
        if match:
            return str(translated) % match.groupdict()
    return what


def verb(name: str) -> str:
    """An API verb of the bus (create, bind, watch ...) in the active language."""
    return str(VERBS.get(name, name))


def component(name: str, obj: dict[str, Any] | None = None) -> str:
    """A component's name for people: "API server", "kubelet on node01", ..."""
    kind, _sep, node = name.partition("/")
    if name == "kubectl":
        return "kubectl"
    if name == "dashboard":
        return _("the web page")
    if name == "client":
        return _("a client")
    if name == "apiserver":
        return _("API server")
    if name == "etcd":
        return "etcd"
    if name.endswith(CONTROLLERS):
        return _("controller manager")
    if name == "scheduler":
        return _("scheduler")
    if kind == "kubelet":
        # The kubelets' shared Node watch names no node; the Node it carries says whose it is.
        node = node or ((obj or {}).get("name", "") if (obj or {}).get("kind") == "Node" else "")
        return _("kubelet on %(node)s") % {"node": node} if node else "kubelet"
    if kind == "runtime":
        return _("container runtime on %(node)s") % {"node": node}
    return name


def _why_stored(step: int, kind: str, pinned: bool | None) -> str:
    """Hops 7 and 8: what was stored, and what waits for it (``pinned`` None: not known)."""
    if kind == "ReplicaSet":
        if step == 7:
            return _("The API server stores the new ReplicaSet in etcd.")
        return _("etcd confirms: the ReplicaSet exists, and the ReplicaSet controller will create its Pods.")
    if step == 7:
        if pinned:
            return _("The API server stores the new Pod in etcd. Its spec.nodeName is already set, so no scheduling.")
        if pinned is False:
            return _("The API server stores the new Pod in etcd. It has no node yet: spec.nodeName is empty.")
        return _("The API server stores the new Pod in etcd.")
    if pinned:
        return _("etcd confirms: the Pod exists; the kubelet of its node will run it without the scheduler.")
    return _("etcd confirms: the Pod exists and waits for the scheduler.")


def _why(message: dict[str, Any], pinned: bool | None = None) -> str:
    sender, to, verb, step = (
        message.get("from", ""),
        message.get("to", ""),
        message.get("verb", ""),
        message.get("step"),
    )
    kind = (message.get("object") or {}).get("kind", "")
    if step in WHY_BY_STEP:
        return str(WHY_BY_STEP[step])
    if step == 6:
        if kind == "ReplicaSet":
            return _(
                "The Deployment controller creates a ReplicaSet for the Pod template; the ReplicaSet keeps the "
                "replica count."
            )
        return _(
            "Its controller (a ReplicaSet, DaemonSet, StatefulSet or Job) has fewer Pods than it wants, so it asks "
            "for another Pod."
        )
    if step in (7, 8):
        return _why_stored(step, kind, pinned)
    if step == 10:
        if sender == "scheduler":
            return _(
                "The scheduler has chosen a node and writes a binding. It only decides; the kubelet does the work."
            )
        return _("The API server stores the binding in etcd: the Pod's spec.nodeName is set.")
    if sender == "scheduler" and verb == "delete" and kind == "Pod":
        return _(
            "Preemption: the scheduler evicts this lower-priority Pod to make room for a Pod of higher priority. "
            "It deletes it gracefully, as kubectl delete would."
        )
    if sender.startswith("runtime/") and verb == "exit":
        return _(
            "The container's process has ended by itself: the container runtime tells the kubelet, which "
            "reports it in the Pod's status."
        )
    if to.startswith("runtime/"):
        return {
            "pull": _("The kubelet asks the container runtime to pull the image; it is quick when the node has it."),
            "create": _("The container runtime prepares the Pod: its sandbox with an IP, then each container."),
            "start": _("The container runtime starts the container."),
        }.get(verb, _("The kubelet stops what the node should no longer run."))
    if step == 12:
        if sender == "apiserver":
            return _("The kubelet watches for Pods bound to its node, and this one is bound to it.")
        return _("The kubelet reports the Pod's status to the API server.")
    if step == 13:
        if sender == "apiserver":
            return _("The API server stores the Pod's new status in etcd.")
        return _("etcd confirms the status, and the API server acknowledges it to the kubelet.")
    if to == "apiserver":
        return _("Every component changes the cluster only through the API server.")
    if to == "etcd":
        return _("The API server stores every change in etcd.")
    if sender == "etcd":
        return _("etcd confirms the write with a new resource version.")
    if sender == "apiserver":
        return _("A watch delivers the change to every component that follows this kind of object.")
    return ""


def caption(message: dict[str, Any], pinned: bool | None = None) -> dict[str, str]:
    """``{"what": ..., "why": ..., "trace": ...}`` for one ``flowmessages`` item, in the active language.

    ``pinned`` says whether the Pod it carries had spec.nodeName set when written (None: not known).
    ``trace`` is the simulator's own log line, which is English: an English page shows it as the
    row's tooltip, other pages have the caption instead.
    """
    obj = message.get("object") or {}
    noun = " ".join(
        part
        for part in (obj.get("kind", ""), "/".join(p for p in (obj.get("namespace", ""), obj.get("name", "")) if p))
        if part
    )
    said = f"{component(message.get('from', ''), obj)} → {component(message.get('to', ''), obj)}: "
    what = f"{said}{verb(message.get('verb', ''))} {noun}"
    return {"what": what.strip(), "why": _why(message, pinned), "trace": "" if chinese() else message.get("summary", "")}



def language_of(scope: Mapping[str, Any]) -> str:
    """The language of a websocket's page: the language cookie, else Accept-Language, as LocaleMiddleware decides."""
    request = HttpRequest()
    for key, value in scope.get("headers") or []:
        name = key.decode("latin-1").upper().replace("-", "_")
        request.META[f"HTTP_{name}"] = value.decode("latin-1")
    request.COOKIES = parse_cookie(request.META.get("HTTP_COOKIE", ""))
    return translation.get_language_from_request(request)
