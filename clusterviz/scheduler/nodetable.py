"""A columnar view of the snapshot's nodes, so plugins can judge every node at once.

Each scheduling attempt asks the same questions of every node: does the Pod's
cpu fit, how full would memory be, which label does the node carry. Asking
them node by node in Python costs tens of microseconds per node; asking them
of NumPy columns costs about as much for a thousand nodes. The
:class:`NodeTable` holds one row per node, in name order, and builds a column
the first time a plugin asks for it. The snapshot keeps the table current: a
Pod bound or removed refreshes that node's row in every built column; a node
whose labels, taints or images change drops the derived columns; a node added
or removed rebuilds the table on next use. Values a plugin works out per node
for one kind of Pod (:meth:`NodeTable.per_row`) are kept too, and worked out
again only for the rows refreshed since.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Iterator, Sequence
from typing import Any, TypeVar, overload

import numpy as np

from clusterviz.scheduler.nodeinfo import CPU, MEMORY, PODS, NodeInfo, PodInfo

# Column kinds: what a resource column counts.
ALLOCATABLE = "allocatable"
REQUESTED = "requested"  # the Pods' actual requests (what the filter sees)
NON_ZERO_REQUESTED = "nonZeroRequested"  # with 100m / 200Mi for unset cpu/memory (what scoring sees)
POD_COUNT = "podCount"
POD_GROUP = "podGroup"  # Pods with one (namespace, labels); the name is that pair
SCORE_TERM = "scoreTerm"  # placed Pods' InterPodAffinity scoring terms; the name is the term
ABSENT = -1  # label code of a node without the label
# How many per-row values (see NodeTable.per_row: one per use and Pod shape) a table keeps, 16 bytes a node
# each; the bench's 35 request shapes times three uses must fit, or cycling through them would miss every time.
PER_ROW_LIMIT = 256
T = TypeVar("T")


def _resource_value(info: NodeInfo, kind: str, name: Hashable) -> int:
    if kind == POD_COUNT:
        return len(info.pods)
    if kind == POD_GROUP:
        return info.pod_groups.get(name, 0)
    if kind == SCORE_TERM:
        return info.score_terms.get(name, 0)
    assert isinstance(name, str)
    if kind == ALLOCATABLE:
        return info.allocatable.get(name)
    if kind == NON_ZERO_REQUESTED and name in (CPU, MEMORY):
        return info.non_zero_requested.get(name)
    if name == PODS:
        return len(info.pods)
    return info.requested.get(name)


class NodeTable:
    """The nodes of a snapshot as rows; resource columns are int64 arrays built on demand."""

    def __init__(self, infos: Sequence[NodeInfo]) -> None:
        self.infos = list(infos)
        self.names = [info.name for info in self.infos]
        self.name_array = np.array(self.names, dtype=object)  # for picking many names at once
        self.rows = {name: row for row, name in enumerate(self.names)}
        self._columns: dict[tuple[str, Hashable], np.ndarray] = {}
        self._pod_columns: dict[tuple[str, Hashable], np.ndarray] = {}
        self._derived: dict[Hashable, Any] = {}
        # Bumped whenever a row is refreshed: what per_row computed for a row is good while its version holds.
        self._versions = np.zeros(len(self.infos), np.int64)
        self._per_row: dict[Hashable, tuple[np.ndarray, np.ndarray]] = {}

    def __len__(self) -> int:
        return len(self.infos)

    def rows_of(self, nodes: Sequence[NodeInfo]) -> np.ndarray:
        """The rows of ``nodes`` (NodeInfos of this table): free for a :class:`RowView` of its infos, which is
        what the cycle hands its PreScore plugins, else looked up by name."""
        if isinstance(nodes, RowView) and nodes.items is self.infos:
            return nodes.rows
        return np.fromiter((self.rows[node.name] for node in nodes), np.int64, len(nodes))

    # --- resource columns ---------------------------------------------------------------

    def column(self, kind: str, name: Hashable = "") -> np.ndarray:
        """One column of counts: a resource (``ALLOCATABLE``, ``REQUESTED``, ``NON_ZERO_REQUESTED``),
        ``POD_COUNT``, or Pods of a ``POD_GROUP`` / placed ``SCORE_TERM``s."""
        key = (kind, name)
        cache = self._pod_columns if kind in (POD_GROUP, SCORE_TERM) else self._columns
        col = cache.get(key)
        if col is None:
            col = np.fromiter((_resource_value(i, kind, name) for i in self.infos), np.int64, len(self.infos))
            cache[key] = col
        return col

    def column_at(self, kind: str, name: Hashable, rows: np.ndarray) -> np.ndarray:
        """:meth:`column` at the given rows (see :func:`at_rows`)."""
        return at_rows(self.column(kind, name), rows)

    def pod_count(self) -> np.ndarray:
        """How many Pods each node runs."""
        return self.column(POD_COUNT)

    def refresh(self, node_name: str, pod: PodInfo | None = None) -> None:
        """Bring one node's row up to date after ``pod`` was bound to it or left it (None: any change)."""
        row = self.rows.get(node_name)
        if row is None:
            return
        info = self.infos[row]
        self._versions[row] += 1
        for (kind, name), col in self._columns.items():
            col[row] = _resource_value(info, kind, name)
        # Of the group and term columns only the Pod's own can have changed.
        keys = (
            self._pod_columns if pod is None else [(POD_GROUP, pod.group), *((SCORE_TERM, t) for t in pod.score_terms)]
        )
        for kind, name in keys:
            pod_col = self._pod_columns.get((kind, name))
            if pod_col is not None:
                pod_col[row] = _resource_value(info, kind, name)

    def per_row(self, key: Hashable, rows: np.ndarray, compute: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        """``compute(rows)`` for a value that depends on ``key`` and on the rows' nodes and Pods alone, kept between
        attempts: a later call computes again only the rows refreshed since (mostly the one node the last Pod went
        to), so scoring the same kind of Pod on thousands of nodes costs little per attempt."""
        entry = self._per_row.pop(key, None)  # popped and put back: the dict's order is least recently used first
        if entry is None:
            entry = (compute(np.arange(len(self))), self._versions.copy())
            if len(self._per_row) >= PER_ROW_LIMIT:
                del self._per_row[next(iter(self._per_row))]
        else:
            values, seen = entry
            stale = np.flatnonzero(seen != self._versions)
            if len(stale):
                values[stale] = compute(stale)
                seen[stale] = self._versions[stale]
        self._per_row[key] = entry
        return at_rows(entry[0], rows)

    def node_changed(self, node_name: str, *, derived: bool = True) -> None:
        """A node's object changed (labels, taints, allocatable, images): refresh its row and, unless ``derived``
        is False (its labels, taints, cordon and images are as they were), drop the derived columns."""
        self.refresh(node_name)
        if derived:
            self._derived.clear()

    # --- derived columns ----------------------------------------------------------------

    def derived(self, key: Hashable, build: Callable[[NodeTable], Any]) -> Any:
        """A column computed from the nodes' objects (not their Pods), built once until a node changes."""
        try:
            return self._derived[key]
        except KeyError:
            value = self._derived[key] = build(self)
            return value

    def labels(self, key: str) -> tuple[np.ndarray, tuple[str, ...]]:
        """Label ``key`` as codes per row (``ABSENT`` where missing) and the distinct values the codes index."""
        return self.derived(("label", key), lambda t: _codes([i.labels.get(key) for i in t.infos]))

    def lacks(self, key: str) -> bool:
        """Whether some node lacks label ``key``: only then do its codes need masking."""
        return bool(self.derived(("lacks", key), lambda t: (t.labels(key)[0] == ABSENT).any()))

    def value_per_row(self, key: str) -> bool:
        """Whether every node has a value of label ``key`` of its own (``kubernetes.io/hostname``): value ``i`` is
        then row ``i``'s, so an array per value is an array per row as it is."""
        return bool(self.derived(("valuePerRow", key), lambda t: np.array_equal(t.labels(key)[0], np.arange(len(t)))))

    def groups(self, key: Hashable, value: Callable[[NodeInfo], Hashable]) -> tuple[np.ndarray, tuple[Any, ...]]:
        """Rows grouped by a per-node value (for example the node's taints): codes per row and the distinct values.

        Most nodes of a cluster share a few values, so a plugin can judge each
        distinct value once and spread the verdicts with ``result[codes]``.
        """
        return self.derived(("group", key), lambda t: _codes([value(i) for i in t.infos], absent_is_value=True))

    def per_group(
        self, key: Hashable, value: Callable[[NodeInfo], Hashable], judge: Callable[[NodeInfo], T]
    ) -> tuple[np.ndarray, list[T]]:
        """Judge one node per distinct ``value`` and return (group code per row, the verdict per group).

        For a plugin whose answer depends only on, say, the node's taints, this
        calls the plugin's own per-node rule once per distinct taint set.
        """
        codes, distinct = self.groups(key, value)
        first_rows = self.derived(("groupRows", key), lambda t: np.unique(codes, return_index=True)[1])
        assert len(first_rows) == len(distinct)
        return codes, [judge(self.infos[row]) for row in first_rows.tolist()]

    def has_image(self, name: str) -> np.ndarray:
        """Whether each node reports image ``name``."""
        return self.derived(("image", name), lambda t: np.array([name in i.images for i in t.infos], bool))


def at_rows(values: np.ndarray, rows: np.ndarray) -> np.ndarray:
    """A per-row array at the given (sorted, distinct) rows; when they are all the rows, the array itself (read it,
    never write it): scoring every node of a big cluster need not copy each column first."""
    return values if len(rows) == len(values) else values[rows]


def _codes(values: Sequence[Any], absent_is_value: bool = False) -> tuple[np.ndarray, tuple[Any, ...]]:
    index: dict[Any, int] = {}
    codes = np.empty(len(values), np.int32)
    for row, value in enumerate(values):
        if value is None and not absent_is_value:
            codes[row] = ABSENT
            continue
        code = index.get(value)
        if code is None:
            code = index[value] = len(index)
        codes[row] = code
    return codes, tuple(index)


class RowView(Sequence[T]):
    """The entries of some rows of a per-row list (a table's NodeInfos or names), looked up only when read.

    Touching thousands of Python objects costs a cache miss each; a cycle that
    needs a few of them, or none until someone reads its record, passes this instead.
    """

    def __init__(self, items: Sequence[T], rows: np.ndarray) -> None:
        self.items, self.rows = items, rows

    def __len__(self) -> int:
        return len(self.rows)

    @overload
    def __getitem__(self, i: int) -> T: ...

    @overload
    def __getitem__(self, i: slice) -> list[T]: ...

    def __getitem__(self, i: int | slice) -> T | list[T]:
        if isinstance(i, slice):
            return [self.items[r] for r in self.rows[i].tolist()]
        return self.items[int(self.rows[i])]

    def __iter__(self) -> Iterator[T]:
        items = self.items
        return (items[r] for r in self.rows.tolist())
