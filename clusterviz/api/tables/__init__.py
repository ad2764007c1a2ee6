"""Server-side ``meta.k8s.io/v1`` Table printing, as a real kube-apiserver does it.

kubectl draws nothing itself: for ``kubectl get`` it asks for a Table and
prints the cells it receives, adding only NAMESPACE/LABELS columns (taken from
``rows[].object``) and the ``kind/`` prefix (for columns with
``format: name``). So READY, STATUS, RESTARTS, AGE and friends must be computed
here, with the same column definitions and the same cell strings the upstream
printers produce.

The real server always prints with ``Wide: true`` and lets kubectl hide the
``priority: 1`` columns unless ``-o wide`` is given, so every row carries all
cells.

Objects are plain Kubernetes JSON dicts that may be incomplete or malformed;
the printers never raise on them and fall back to ``<none>``/``<unknown>`` (or
whatever upstream would print for a zero value). Where the real server applies
defaults before storing an object (``spec.replicas`` = 1, pod phase
``Pending``, service type ``ClusterIP``, port protocol ``TCP``, namespace
phase ``Active``) the printers assume those defaults for missing fields, so a
not-yet-defaulted object prints like its stored counterpart would.
"""

from .build import build_table
from .columns import PARTIAL_METADATA_FIELDS, RESOURCES_WITH_TABLES, column_definitions
from .common import parse_timestamp_ns
from .labels import format_label_selector, format_labels, label_selector_string

__all__ = [
    "RESOURCES_WITH_TABLES",
    "PARTIAL_METADATA_FIELDS",
    "build_table",
    "column_definitions",
    "format_label_selector",
    "format_labels",
    "label_selector_string",
    "parse_timestamp_ns",
]
