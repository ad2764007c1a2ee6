"""The ClusterRole aggregation controller: a ClusterRole with an aggregationRule carries the rules of the
ClusterRoles its selectors match.

So a definition's author grants its kind to every ``edit`` or ``view`` user by labelling a ClusterRole
``rbac.authorization.k8s.io/aggregate-to-edit: "true"``, as upstream's controller in
kube-controller-manager makes it work: the matching roles are taken in name order, each rule once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from clusterviz.api import errors
from clusterviz.api.informer import Handler
from clusterviz.apimachinery import labels

from .util import Obj, Worker, labels_of, meta

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT: Final = "clusterrole-aggregation"


def aggregated_rules(role: Obj, roles: list[Obj]) -> list[dict[str, Any]] | None:
    """The rules ``role`` should carry (None when it has no aggregationRule or a selector is unusable)."""
    rule = role.get("aggregationRule")
    if not isinstance(rule, dict):
        return None
    out: list[dict[str, Any]] = []
    for selector in rule.get("clusterRoleSelectors") or []:
        try:
            chosen = labels.selector_from_label_selector(selector)
        except (labels.SelectorError, TypeError, AttributeError):
            return None
        matching = sorted((r for r in roles if chosen.matches(labels_of(r))), key=lambda r: str(meta(r).get("name")))
        for other in matching:
            if meta(other).get("name") == meta(role).get("name"):
                continue
            out.extend(r for r in other.get("rules") or [] if r not in out)
    return out


class ClusterRoleAggregationController:
    """Keeps every aggregated ClusterRole's rules the union of its parts'."""

    def __init__(self, cm: ControllerManager) -> None:
        self.client = cm.client
        self.roles = cm.informers["clusterroles"]
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        # Any change may change what some aggregated role should hold: each is looked at again.
        self.roles.add_handler(Handler(self._enqueue, lambda _old, _new: self._enqueue(_new), self._enqueue))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _enqueue(self, _changed: Obj) -> None:
        for role in self.roles.items():
            if isinstance(role.get("aggregationRule"), dict):
                self.worker.add(str(meta(role).get("name", "")))

    async def sync(self, name: str) -> None:
        """Write the role's rules when they are not what its parts hold."""
        role = self.roles.get(name)
        wanted = aggregated_rules(role, self.roles.items()) if role is not None else None
        if role is None or wanted is None or wanted == (role.get("rules") or []):
            return
        try:
            await self.client.update({**role, "rules": wanted})
        except errors.StatusError as exc:
            # Gone or changed since the cache saw it: its next event brings it back here.
            if exc.code not in (404, 409):
                raise
