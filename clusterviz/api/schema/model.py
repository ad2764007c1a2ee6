"""The building blocks of a kind's description: types, fields and named definitions.

Each kind is described once (``define``); the OpenAPI documents and the
unknown-field check are both read from that one description.
"""

from __future__ import annotations

from dataclasses import dataclass, field

META = "io.k8s.apimachinery.pkg.apis.meta.v1."
CORE = "io.k8s.api.core.v1."
APPS = "io.k8s.api.apps.v1."
BATCH = "io.k8s.api.batch.v1."
QUANTITY = "io.k8s.apimachinery.pkg.api.resource.Quantity"
INT_OR_STRING = "io.k8s.apimachinery.pkg.util.intstr.IntOrString"


@dataclass(frozen=True)
class Type:
    """A field's type: a primitive, an array or map of a type, a named definition, or an open object."""

    kind: str  # string, integer, number, boolean, object, array, map, ref
    format: str = ""
    item: Type | None = None
    ref: str = ""
    # Merge semantics kubectl and server-side apply read (x-kubernetes-list-*).
    list_type: str = ""
    map_keys: tuple[str, ...] = ()
    enum: tuple[str, ...] = ()


@dataclass(frozen=True)
class Field:
    type: Type
    description: str


@dataclass
class Definition:
    """A named schema: an object with fields, or a scalar (Time, Quantity)."""

    name: str
    description: str
    fields: dict[str, Field] = field(default_factory=dict)
    required: tuple[str, ...] = ()
    # (group, version, kind) of a top-level kind.
    gvk: tuple[str, str, str] | None = None
    # Fields not described here are kept and not checked.
    open: bool = False
    # For scalar definitions: their own v3 / v2 schema.
    scalar_v3: dict[str, object] | None = None
    scalar_v2: dict[str, object] | None = None


STRING = Type("string")
BYTES = Type("string", "byte")
INT32 = Type("integer", "int32")
INT64 = Type("integer", "int64")
NUMBER = Type("number", "double")
BOOL = Type("boolean")
OPEN = Type("object")
STRINGS = Type("array", item=STRING, list_type="atomic")

DEFINITIONS: dict[str, Definition] = {}


def ref(name: str) -> Type:
    return Type("ref", ref=name)


def array(item: Type, *keys: str, list_type: str = "") -> Type:
    """A list; with keys it is a map-list merged by those keys (containers by name, ports by port)."""
    return Type("array", item=item, map_keys=keys, list_type=list_type or ("map" if keys else "atomic"))


def map_of(item: Type = STRING) -> Type:
    return Type("map", item=item)


def enum(*values: str) -> Type:
    return Type("string", enum=values)


TIME = ref(META + "Time")
MICRO_TIME = ref(META + "MicroTime")
QTY = ref(QUANTITY)
INT_STR = ref(INT_OR_STRING)
QTY_MAP = map_of(QTY)
OBJECT_META = ref(META + "ObjectMeta")
LIST_META = ref(META + "ListMeta")
SELECTOR = ref(META + "LabelSelector")


def define(
    name: str,
    description: str,
    fields: dict[str, tuple[Type, str]],
    *,
    required: tuple[str, ...] = (),
    gvk: tuple[str, str, str] | None = None,
    open: bool = False,
) -> Definition:
    """Describe one named object type; returns it (and registers it)."""
    definition = Definition(
        name, description, {k: Field(t, d) for k, (t, d) in fields.items()}, required, gvk, open
    )
    DEFINITIONS[name] = definition
    return definition


def define_scalar(name: str, description: str, v3: dict[str, object], v2: dict[str, object]) -> None:
    """A named type with no fields of its own (a timestamp, a quantity)."""
    DEFINITIONS[name] = Definition(name, description, scalar_v3=v3, scalar_v2=v2)


def kind(group: str, version: str, kind_name: str, name: str, description: str,
         spec: str | None = None, status: str | None = None,
         extra: dict[str, tuple[Type, str]] | None = None, required: tuple[str, ...] = ()) -> Definition:
    """A top-level kind: apiVersion, kind, metadata, then spec/status or its own fields."""
    fields: dict[str, tuple[Type, str]] = {
        "apiVersion": (STRING, "The versioned schema of this object; the server converts it to its own."),
        "kind": (STRING, "The REST resource type this object is, in CamelCase."),
        "metadata": (OBJECT_META, "Standard object metadata: name, namespace, labels and more."),
    }
    if spec:
        fields["spec"] = (ref(spec), f"The desired state of the {kind_name}.")
    if status:
        fields["status"] = (ref(status), f"The most recently observed state of the {kind_name}; read-only.")
    fields.update(extra or {})
    return define(name, description, fields, required=required, gvk=(group, version, kind_name))
