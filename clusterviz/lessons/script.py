"""What a lesson is made of: its starting cluster, its manifest, and a script of steps with buttons.

Pure data: nothing here talks to the API. ``runner`` puts a lesson's cluster in
place and performs its actions; the presenter view and the cluster page show
its steps. Every action is one kubectl command, and ``Action.kubectl()`` prints
it, so a class can type exactly what the button did.
"""

from __future__ import annotations

import shlex
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import yaml

from clusterviz.api.metrics import LOAD_ANNOTATION
from clusterviz.kubelet.nodes import ANNOTATION as KUBELET_ANNOTATION

# What a script's buttons can do, each one kubectl command (see Action.arguments).
ACTION_KINDS = frozenset({
    "apply", "label", "unlabel", "taint", "untaint", "cordon", "uncordon", "stop-kubelet", "start-kubelet",
    "scale", "set-image", "delete-pod", "create-job", "suspend", "set-load", "drain", "annotate",
})
# What kubectl patch sends to suspend a CronJob.
SUSPEND_PATCH = '{"spec":{"suspend":true}}'



@dataclass(frozen=True)
class Action:
    """One thing the lesson asks the class to do, done through the API as kubectl would.

    ``target`` names the object: a node (``node02``), a workload (``deployment/myapp``,
    ``rc/mysql``), a Pod (``pod/disk-holder``), or for ``apply`` the file name the
    class would type (``myapp.yaml``). ``value`` is kubectl's argument:
    ``disktype=ssd`` (label), ``disktype`` (unlabel), ``key=value:NoSchedule``
    (taint), ``key:NoSchedule`` (untaint), ``5`` (scale), ``myapp=soscscs/myapp:v2``
    (set-image), ``tick-now`` (create-job: the Job's name; the target is ``cronjob/tick``), ``600m``
    (set-load: the CPU the workload's Pods use together; the target is ``deployment/web``),
    ``clusterviz.io/probe-fail=readiness`` (annotate: set, or ``key-`` to remove; the target is ``pod/shop-2``).
    ``manifest`` is what an ``apply`` of a file other than the lesson's manifest applies.
    """

    kind: str
    target: str
    value: str = ""
    label: str = ""
    label_zh: str = ""
    manifest: str = ""

    @property
    def node(self) -> str:
        """The node a node action is about (``node02`` or ``node/node02`` both name node02)."""
        return self.target.removeprefix("node/")

    def kubectl(self) -> str:
        """The kubectl command that does the same, e.g. ``kubectl label node node02 disktype=ssd``."""
        return shlex.join(["kubectl", *self.arguments()])

    def arguments(self) -> list[str]:
        """kubectl's arguments for this action, without the program name."""
        kind, node = self.kind, self.node
        if kind == "apply":
            return ["apply", "-f", self.target]
        if kind == "label":
            return ["label", "node", node, self.value]
        if kind == "unlabel":
            return ["label", "node", node, f"{self.value.removesuffix('-')}-"]
        if kind == "taint":
            return ["taint", "node", node, self.value]
        if kind == "untaint":
            return ["taint", "node", node, f"{self.value.removesuffix('-')}-"]
        if kind in ("cordon", "uncordon"):
            return [kind, node]
        if kind in ("stop-kubelet", "start-kubelet"):
            state = "stopped" if kind == "stop-kubelet" else "running"
            return ["annotate", "node", node, f"{KUBELET_ANNOTATION}={state}", "--overwrite"]
        if kind == "scale":
            return ["scale", self.target, f"--replicas={self.value}"]
        if kind == "set-image":
            return ["set", "image", self.target, self.value]
        if kind == "delete-pod":
            return ["delete", self.target]
        if kind == "create-job":
            return ["create", "job", self.value, f"--from={self.target}"]
        if kind == "suspend":
            return ["patch", self.target, "-p", SUSPEND_PATCH]
        if kind == "set-load":
            return ["annotate", self.target, f"{LOAD_ANNOTATION}={self.value}", "--overwrite"]
        if kind == "drain":
            return ["drain", node, "--ignore-daemonsets"]
        if kind == "annotate":
            # ``key=value`` sets (over whatever was there), ``key-`` removes.
            return ["annotate", self.target, self.value, *([] if self.value.endswith("-") else ["--overwrite"])]
        raise ValueError(f"unknown action kind {kind!r}")


@dataclass(frozen=True)
class Step:
    """One moment of the lesson: what to say or look at, its button, and a question to pause on."""

    text: str
    text_zh: str
    action: Action | None = None
    # When set, the presenter pauses here and asks the class before going on.
    question: str = ""
    question_zh: str = ""


@dataclass(frozen=True)
class NodeSpec:
    """A node a lesson starts with: its size, labels, taints, and images already on its disk."""

    name: str
    cpu: str = "4"
    memory: str = "8Gi"
    labels: Mapping[str, str] = field(default_factory=dict)
    taints: tuple[Mapping[str, str], ...] = ()
    images: tuple[str, ...] = ()


# The demo's nodes: what a cluster is reset to when no lesson asks for others.
DEFAULT_NODES = (NodeSpec("node01"), NodeSpec("node02"), NodeSpec("node03"))


@dataclass(frozen=True)
class Lesson:
    """A classroom lesson: the cluster it starts from, the manifest it applies, and its script."""

    slug: str
    title: str
    title_zh: str
    manifest: str
    steps: tuple[Step, ...]
    nodes: tuple[NodeSpec, ...] = DEFAULT_NODES
    # Objects in place before the lesson starts (Pods pinned with nodeName that load a node, hold a port or a disk).
    fillers: tuple[Mapping[str, Any], ...] = ()
    # simulations/default spec fields for this lesson (see TIMINGS in clusterviz/sim/api_group.py); the rest default.
    timings: Mapping[str, float] = field(default_factory=dict)
    # "Kind/name" of the object whose story the presenter follows; empty: the manifest's first object.
    follow: str = ""

    @property
    def actions(self) -> tuple[Action, ...]:
        """Every button of the script, in order."""
        return tuple(step.action for step in self.steps if step.action is not None)

    @property
    def followed(self) -> str:
        """``Kind/name`` of the object the presenter follows: ``follow``, else the manifest's first object."""
        if self.follow:
            return self.follow
        first = next((d for d in yaml.safe_load_all(self.manifest) if isinstance(d, dict)), {})
        return f"{first.get('kind', '')}/{(first.get('metadata') or {}).get('name', '')}"
