"""The service account controller: every active namespace has a ServiceAccount named ``default``.

As upstream's ServiceAccountsController, it watches namespaces (a new one,
or one changed, is looked at) and ServiceAccounts (deleting ``default``
brings it back), and creates what is missing. A namespace that is gone or
terminating gets nothing: the API server would refuse the write anyway.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from clusterviz.api import errors
from clusterviz.api.informer import Handler

from .util import Obj, Worker, deleting, meta

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT: Final = "serviceaccount-controller"
# The accounts every namespace gets (kube-controller-manager's --service-account-names default).
ACCOUNTS: Final = ("default",)


class ServiceAccountsController:
    """Creates each namespace's ``default`` ServiceAccount."""

    def __init__(self, cm: ControllerManager) -> None:
        self.client = cm.client
        self.namespaces = cm.informers["namespaces"]
        self.accounts = cm.informers["serviceaccounts"]
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self.namespaces.add_handler(Handler(self._namespace_seen, lambda old, new: self._namespace_seen(new)))
        self.accounts.add_handler(Handler(on_delete=self._account_deleted))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _namespace_seen(self, namespace: Obj) -> None:
        self.worker.add(str(meta(namespace).get("name", "")))

    def _account_deleted(self, account: Obj) -> None:
        if meta(account).get("name") in ACCOUNTS:
            self.worker.add(str(meta(account).get("namespace", "")))

    async def sync(self, namespace: str) -> None:
        """Create the accounts ``namespace`` lacks, if it is still there and active."""
        ns = self.namespaces.get(namespace)
        if ns is None or deleting(ns) or (ns.get("status") or {}).get("phase") == "Terminating":
            return
        for name in ACCOUNTS:
            if self.accounts.get(f"{namespace}/{name}") is not None:
                continue
            body = {"apiVersion": "v1", "kind": "ServiceAccount", "metadata": {"name": name, "namespace": namespace}}
            try:
                await self.client.create(body, namespace)
            except errors.StatusError as exc:
                # Already there (the cache is behind), or the namespace began terminating meanwhile.
                if exc.code not in (403, 404, 409):
                    raise
