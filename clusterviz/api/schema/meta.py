"""Types every kind shares: object and list metadata, selectors, timestamps, quantities."""

from __future__ import annotations

from .model import (
    BOOL,
    INT64,
    INT_OR_STRING,
    META,
    QUANTITY,
    STRING,
    STRINGS,
    TIME,
    array,
    define,
    define_scalar,
    map_of,
    ref,
)

define_scalar(
    META + "Time", "A point in time, written as an RFC 3339 timestamp with second precision.",
    {"type": "string", "format": "date-time"}, {"type": "string", "format": "date-time"},
)
define_scalar(
    META + "MicroTime", "A point in time with microsecond precision, written as RFC 3339.",
    {"type": "string", "format": "date-time"}, {"type": "string", "format": "date-time"},
)
define_scalar(
    QUANTITY,
    "An amount with an optional unit suffix: plain numbers, decimal SI (k, M, G...), binary SI "
    "(Ki, Mi, Gi...) or milli-units such as 250m.",
    {"oneOf": [{"type": "string"}, {"type": "number"}]}, {"type": "string"},
)
define_scalar(
    INT_OR_STRING, "A value that is either a whole number or a string (a port name, a percentage).",
    {"anyOf": [{"type": "integer"}, {"type": "string"}], "x-kubernetes-int-or-string": True},
    {"type": "string", "format": "int-or-string"},
)

define(META + "ObjectMeta", "Metadata every persisted object has: identity, labels, ownership, lifecycle.", {
    "annotations": (map_of(), "Free-form key/value data tools attach to the object; not used for selection."),
    "creationTimestamp": (TIME, "When the server created the object; set by the server, read-only."),
    "deletionGracePeriodSeconds": (INT64, "Seconds the object has left to terminate once deletion was asked."),
    "deletionTimestamp": (TIME, "When the object will be removed; set by the server when deletion starts."),
    "finalizers": (array(STRING, list_type="set"), "Names of cleanups that must finish before the object goes."),
    "generateName": (STRING, "A prefix from which the server makes a unique name when none is given."),
    "generation": (INT64, "A number the server increases on each change to the desired state."),
    "labels": (map_of(), "Key/value pairs that selectors match (Services, ReplicaSets, kubectl -l)."),
    "managedFields": (array(ref(META + "ManagedFieldsEntry")), "Which manager set which fields; used by server-side apply."),
    "name": (STRING, "The object's name, unique within its namespace (or cluster) for its kind."),
    "namespace": (STRING, "The namespace the object lives in; empty for cluster-wide kinds."),
    "ownerReferences": (array(ref(META + "OwnerReference"), "uid"), "Objects this one belongs to; the garbage collector deletes it when they are gone."),
    "resourceVersion": (STRING, "An opaque version the server sets on each write; used for watches and conflicts."),
    "selfLink": (STRING, "Deprecated; never set."),
    "uid": (STRING, "The unique id the server gave this object at creation."),
})

define(META + "OwnerReference", "Points at the object that owns this one.", {
    "apiVersion": (STRING, "API version of the owner."),
    "blockOwnerDeletion": (BOOL, "If true, the owner is not removed by foreground deletion until this object is."),
    "controller": (BOOL, "If true, the owner is this object's managing controller (at most one is)."),
    "kind": (STRING, "Kind of the owner."),
    "name": (STRING, "Name of the owner."),
    "uid": (STRING, "UID of the owner."),
}, required=("apiVersion", "kind", "name", "uid"))

define(META + "ManagedFieldsEntry", "The set of fields one manager owns, recorded for server-side apply.", {
    "apiVersion": (STRING, "The version of the object the field set is written against."),
    "fieldsType": (STRING, "The format of fieldsV1; only FieldsV1 exists."),
    "fieldsV1": (ref(META + "FieldsV1"), "The owned fields, as a tree of f:, k: and v: keys."),
    "manager": (STRING, "The name of the manager (kubectl, a controller...)."),
    "operation": (STRING, "Apply or Update: how the fields came to be owned."),
    "subresource": (STRING, "The subresource the write went to, if any."),
    "time": (TIME, "When the manager last changed these fields."),
})
define(META + "FieldsV1", "A tree of owned fields, kept as JSON.", {}, open=True)

define(META + "ListMeta", "Metadata of a list: its revision and the token to read the next page.", {
    "continue": (STRING, "Pass this back as the continue parameter to read the next page."),
    "remainingItemCount": (INT64, "How many more items a paged list holds after this page."),
    "resourceVersion": (STRING, "The revision the list was read at; a watch can start from it."),
    "selfLink": (STRING, "Deprecated; never set."),
})

define(META + "LabelSelector", "Selects objects by their labels; all requirements must hold.", {
    "matchExpressions": (array(ref(META + "LabelSelectorRequirement")), "Set-based requirements (In, NotIn, Exists, DoesNotExist)."),
    "matchLabels": (map_of(), "Labels that must be present with exactly these values."),
})
define(META + "LabelSelectorRequirement", "One set-based requirement of a label selector.", {
    "key": (STRING, "The label key the requirement applies to."),
    "operator": (STRING, "In, NotIn, Exists or DoesNotExist."),
    "values": (STRINGS, "The values for In and NotIn; empty for Exists and DoesNotExist."),
}, required=("key", "operator"))

define(META + "Condition", "One aspect of an object's current state.", {
    "lastTransitionTime": (TIME, "When the status last changed."),
    "message": (STRING, "A human-readable account of the transition."),
    "observedGeneration": (INT64, "The generation the condition was set for."),
    "reason": (STRING, "A CamelCase word for why the condition last changed."),
    "status": (STRING, "True, False or Unknown."),
    "type": (STRING, "The condition's type, in CamelCase."),
}, required=("lastTransitionTime", "message", "reason", "status", "type"))

define(META + "RawExtension", "An embedded object of any kind, kept as JSON.", {}, open=True)
