"""The Pods a ReplicaSet's last sync claimed, kept current from the Pod events since.

A ReplicaSet's sync claims and counts every one of its Pods, and every change of one of them queues
the ReplicaSet again: with 10,000 Pods that is 10,000 Pods looked at per change, which upstream's
controller does in Go and this one cannot afford. So the full walk is done once; after it, every Pod
event notes the Pod under the controller uid it names (before and after the change), and the next
sync looks again at those Pods only. The counts are what the full walk would find: the walk is done
again whenever anything it depends on other than the owned Pods may have changed (see
``ReplicaSetController._claimed_since``).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from clusterviz.apimachinery.labels import Selector

from .util import PodFacts


@dataclass(frozen=True)
class ReplicaCounts:
    """The status counts of a ReplicaSet's claimed Pods."""

    replicas: int
    fully_labeled: int
    ready: int
    available: int


def counted(facts: PodFacts, template: Selector) -> tuple[bool, bool]:
    """What a claimed Pod adds to the counts: (carries the template's labels, Ready)."""
    return facts.selected_by(template), facts.ready


@dataclass
class ClaimedPods:
    """One ReplicaSet's claimed Pods (by key) with what each adds to the counts, and the Pods changed since.

    ``selector`` and ``template`` are the string forms the claim and the counts were made with: a sync
    whose owner now has others walks every Pod again.
    """

    selector: str
    template: str
    members: dict[str, tuple[bool, bool]] = field(default_factory=dict)
    changed: dict[str, None] = field(default_factory=dict)
    labeled: int = 0
    ready: int = 0

    def note(self, pod_key: str) -> None:
        """The Pod changed, appeared or went: look at it again next sync."""
        self.changed[pod_key] = None

    def claim(self, pod_key: str, contribution: tuple[bool, bool] | None) -> None:
        """Record the Pod as claimed with ``contribution``, or (None) as not claimed; the counts follow."""
        previous = self.members.pop(pod_key, None)
        if previous is not None:
            self.labeled -= previous[0]
            self.ready -= previous[1]
        if contribution is not None:
            self.members[pod_key] = contribution
            self.labeled += contribution[0]
            self.ready += contribution[1]

    def counts(self) -> ReplicaCounts:
        """The counts of the claimed Pods (each Ready one available: only used without minReadySeconds)."""
        return ReplicaCounts(len(self.members), self.labeled, self.ready, self.ready)
