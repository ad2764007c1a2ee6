"""The apiextensions.k8s.io group (v1): CustomResourceDefinitions, which add kinds of their own to the API.

A definition's OpenAPI v3 schema (JSONSchemaProps) is recursive and open to
every ``x-kubernetes-*`` extension, so its description names the keys users
write most and leaves the rest open: any schema passes the unknown-field check,
and what a schema may say is judged by the definition's validation.
"""

from __future__ import annotations

from .model import (
    BOOL,
    BYTES,
    INT32,
    INT64,
    NUMBER,
    STRING,
    STRINGS,
    TIME,
    array,
    define,
    define_scalar,
    enum,
    kind,
    map_of,
    ref,
)

_EXT = "io.k8s.apiextensions-apiserver.pkg.apis.apiextensions.v1."
_SCHEMA = ref(_EXT + "JSONSchemaProps")
_JSON = ref(_EXT + "JSON")

kind("apiextensions.k8s.io", "v1", "CustomResourceDefinition", _EXT + "CustomResourceDefinition",
     "A new kind of resource for the API server to serve, with its names, versions and schema. Its name must be "
     "<plural>.<group>.",
     _EXT + "CustomResourceDefinitionSpec", _EXT + "CustomResourceDefinitionStatus", required=("spec",))
define(_EXT + "CustomResourceDefinitionSpec", "The resource the definition adds: its group, names, scope and "
                                              "versions.", {
    "conversion": (ref(_EXT + "CustomResourceConversion"), "How objects are converted between the versions; None "
                                                           "by default."),
    "group": (STRING, "The API group the resource is served in (/apis/<group>/...); a domain with at least one dot."),
    "names": (ref(_EXT + "CustomResourceDefinitionNames"), "The names the resource and its objects go by."),
    "preserveUnknownFields": (BOOL, "Keep fields the schema does not describe; deprecated, use "
                                    "x-kubernetes-preserve-unknown-fields in the schema instead."),
    "scope": (STRING, "Cluster or Namespaced: whether the objects live in a namespace."),
    "versions": (array(ref(_EXT + "CustomResourceDefinitionVersion")),
                 "The versions the resource is served in; exactly one is the storage version."),
}, required=("group", "names", "scope", "versions"))
define(_EXT + "CustomResourceDefinitionNames", "The names of a custom resource and its objects.", {
    "categories": (STRINGS, "Groups of resources this one belongs to, such as all, for kubectl get <category>."),
    "kind": (STRING, "The kind of the objects, in CamelCase, such as CronTab."),
    "listKind": (STRING, "The kind of a list of the objects; <kind>List by default."),
    "plural": (STRING, "The resource's name in URLs (/apis/<group>/<version>/<plural>), lowercase."),
    "shortNames": (STRINGS, "Shorter names kubectl accepts for the resource, such as ct."),
    "singular": (STRING, "The singular name, lowercase; the kind lowercased by default."),
}, required=("plural", "kind"))
define(_EXT + "CustomResourceDefinitionVersion", "One version of a custom resource.", {
    "additionalPrinterColumns": (array(ref(_EXT + "CustomResourceColumnDefinition")),
                                 "The columns kubectl get prints besides the name; Age when none are given."),
    "deprecated": (BOOL, "The version is deprecated: requests to it get a warning."),
    "deprecationWarning": (STRING, "The warning deprecated requests get instead of the default one."),
    "name": (STRING, "The version's name in URLs (/apis/<group>/<name>/...), such as v1 or v1beta1."),
    "schema": (ref(_EXT + "CustomResourceValidation"), "The schema the version's objects are validated and pruned "
                                                       "by."),
    "selectableFields": (array(ref(_EXT + "SelectableField"), list_type="atomic"),
                         "Fields of the objects that field selectors may name."),
    "served": (BOOL, "The version is served by the REST API."),
    "storage": (BOOL, "Objects are stored in this version; exactly one version has it."),
    "subresources": (ref(_EXT + "CustomResourceSubresources"), "The status and scale subresources of the version."),
}, required=("name", "served", "storage"))
define(_EXT + "CustomResourceValidation", "The schema of a version's objects.", {
    "openAPIV3Schema": (_SCHEMA, "An OpenAPI v3 schema, structural: types given at every level."),
})
define(_EXT + "CustomResourceSubresources", "Which subresources the objects have.", {
    "scale": (ref(_EXT + "CustomResourceSubresourceScale"), "A /scale subresource, for kubectl scale and "
                                                            "autoscalers."),
    "status": (ref(_EXT + "CustomResourceSubresourceStatus"), "A /status subresource: status is written only "
                                                              "through it, and spec changes bump the generation."),
})
define(_EXT + "CustomResourceSubresourceStatus", "An empty object: the status subresource is on.", {})
define(_EXT + "CustomResourceSubresourceScale", "Where the scale subresource finds the replica counts.", {
    "labelSelectorPath": (STRING, "A JSON path under .spec or .status to the label selector, as a string, for "
                                  "autoscalers."),
    "specReplicasPath": (STRING, "A JSON path under .spec to the desired replicas, such as .spec.replicas."),
    "statusReplicasPath": (STRING, "A JSON path under .status to the observed replicas, such as "
                                   ".status.replicas."),
}, required=("specReplicasPath", "statusReplicasPath"))
define(_EXT + "CustomResourceColumnDefinition", "A column of kubectl get's table.", {
    "description": (STRING, "What the column shows, for people."),
    "format": (STRING, "How the value is written: int32, int64, float, double, byte, date, date-time or password."),
    "jsonPath": (STRING, "A simple JSON path into each object, such as .spec.replicas."),
    "name": (STRING, "The column's heading."),
    "priority": (INT32, "0 for the columns always shown; higher ones only with -o wide."),
    "type": (STRING, "The value's type: integer, number, string, boolean or date."),
}, required=("name", "type", "jsonPath"))
define(_EXT + "SelectableField", "A field field selectors may name.", {
    "jsonPath": (STRING, "A simple JSON path to a string, integer or boolean field, such as .spec.color."),
}, required=("jsonPath",))
define(_EXT + "CustomResourceConversion", "How objects are converted between versions.", {
    "strategy": (enum("None", "Webhook"), "None (only apiVersion changes) or Webhook (a conversion webhook "
                                          "converts)."),
    "webhook": (ref(_EXT + "WebhookConversion"), "The conversion webhook, when strategy is Webhook."),
}, required=("strategy",))
define(_EXT + "WebhookConversion", "A conversion webhook and the ConversionReview versions it understands.", {
    "clientConfig": (ref(_EXT + "WebhookClientConfig"), "How to reach the webhook."),
    "conversionReviewVersions": (STRINGS, "ConversionReview versions the webhook accepts, in order of preference."),
}, required=("conversionReviewVersions",))
define(_EXT + "WebhookClientConfig", "A webhook, by URL or by Service.", {
    "caBundle": (BYTES, "A PEM CA bundle that validates the webhook's serving certificate."),
    "service": (ref(_EXT + "ServiceReference"), "The Service of the webhook."),
    "url": (STRING, "The webhook's https URL, when it is not a Service of the cluster."),
})
define(_EXT + "ServiceReference", "A Service, by namespace and name, and its path and port.", {
    "name": (STRING, "The Service's name."),
    "namespace": (STRING, "The Service's namespace."),
    "path": (STRING, "The URL path requests are sent to."),
    "port": (INT32, "The Service's port; 443 by default."),
}, required=("namespace", "name"))
define(_EXT + "CustomResourceDefinitionStatus", "What the API server has made of the definition.", {
    "acceptedNames": (ref(_EXT + "CustomResourceDefinitionNames"), "The names actually served; they may differ "
                                                                   "from spec.names when those conflict."),
    "conditions": (array(ref(_EXT + "CustomResourceDefinitionCondition"), "type"),
                   "NamesAccepted, Established and others, with why when they are not true."),
    "storedVersions": (STRINGS, "Every version objects were ever stored in; a version leaves spec.versions only "
                                "once it left this list."),
})
define(_EXT + "CustomResourceDefinitionCondition", "One condition of a CustomResourceDefinition.", {
    "lastTransitionTime": (TIME, "When the condition last changed status."),
    "message": (STRING, "Details for people."),
    "observedGeneration": (INT64, "The generation of the definition the condition was set for."),
    "reason": (STRING, "Why, in one CamelCase word."),
    "status": (STRING, "True, False or Unknown."),
    "type": (STRING, "Established, NamesAccepted, NonStructuralSchema, Terminating or KubernetesAPIApprovalPolicy"
                     "Conformant."),
}, required=("type", "status"))

# The schema language itself: the keys of JSON Schema and Kubernetes' extensions, each typed; left open,
# so keys not listed here are not reported as unknown (validation judges them).
define(_EXT + "JSONSchemaProps", "An OpenAPI v3 schema of a value (JSON Schema with Kubernetes' extensions).", {
    "$ref": (STRING, "Not supported in custom resource schemas."),
    "$schema": (STRING, "The JSON Schema dialect."),
    "additionalItems": (ref(_EXT + "JSONSchemaPropsOrBool"), "Not supported in custom resource schemas."),
    "additionalProperties": (ref(_EXT + "JSONSchemaPropsOrBool"), "The schema of every entry of a map; not "
                                                                  "together with properties."),
    "allOf": (array(_SCHEMA), "Schemas the value must all satisfy."),
    "anyOf": (array(_SCHEMA), "Schemas the value must satisfy at least one of."),
    "default": (_JSON, "The value written when the field is absent; needs a structural schema."),
    "definitions": (map_of(_SCHEMA), "Not supported in custom resource schemas."),
    "dependencies": (map_of(ref(_EXT + "JSONSchemaPropsOrStringArray")), "Not supported in custom resource "
                                                                         "schemas."),
    "description": (STRING, "What the value means, as kubectl explain shows it."),
    "enum": (array(_JSON), "The only values allowed."),
    "example": (_JSON, "An example value."),
    "exclusiveMaximum": (BOOL, "maximum itself is not allowed."),
    "exclusiveMinimum": (BOOL, "minimum itself is not allowed."),
    "externalDocs": (ref(_EXT + "ExternalDocumentation"), "Where to read more."),
    "format": (STRING, "A format of strings or numbers: int32, int64, date-time, uuid, byte, ..."),
    "id": (STRING, "Not supported in custom resource schemas."),
    "items": (ref(_EXT + "JSONSchemaPropsOrArray"), "The schema of an array's items; required for arrays."),
    "maxItems": (INT64, "The most items an array may have."),
    "maxLength": (INT64, "The longest a string may be."),
    "maxProperties": (INT64, "The most entries an object may have."),
    "maximum": (NUMBER, "The largest number allowed."),
    "minItems": (INT64, "The fewest items an array may have."),
    "minLength": (INT64, "The shortest a string may be."),
    "minProperties": (INT64, "The fewest entries an object may have."),
    "minimum": (NUMBER, "The smallest number allowed."),
    "multipleOf": (NUMBER, "A number the value must be a multiple of."),
    "not": (_SCHEMA, "A schema the value must not satisfy."),
    "nullable": (BOOL, "null is allowed as well as the type."),
    "oneOf": (array(_SCHEMA), "Schemas the value must satisfy exactly one of."),
    "pattern": (STRING, "A regular expression strings must match."),
    "patternProperties": (map_of(_SCHEMA), "Not supported in custom resource schemas."),
    "properties": (map_of(_SCHEMA), "The schemas of an object's fields, by name."),
    "required": (STRINGS, "The fields an object must have."),
    "title": (STRING, "A short title."),
    "type": (STRING, "object, array, string, integer, number or boolean; required at every level."),
    "uniqueItems": (BOOL, "Not allowed to be true in custom resource schemas."),
    "x-kubernetes-embedded-resource": (BOOL, "The value is a whole object with apiVersion, kind and metadata."),
    "x-kubernetes-int-or-string": (BOOL, "The value is an integer or a string."),
    "x-kubernetes-list-map-keys": (STRINGS, "The fields that identify an item of a map list."),
    "x-kubernetes-list-type": (STRING, "atomic, set or map: how server-side apply merges the list."),
    "x-kubernetes-map-type": (STRING, "granular or atomic: how server-side apply merges the object."),
    "x-kubernetes-preserve-unknown-fields": (BOOL, "Keep fields the schema does not describe instead of pruning "
                                                   "them."),
    "x-kubernetes-validations": (array(ref(_EXT + "ValidationRule"), "rule"), "CEL rules the value must satisfy."),
}, open=True)
define(_EXT + "ValidationRule", "A CEL rule a value must satisfy.", {
    "fieldPath": (STRING, "The field the error is reported at, relative to the value."),
    "message": (STRING, "The error shown when the rule fails."),
    "messageExpression": (STRING, "A CEL expression that builds the error shown when the rule fails."),
    "optionalOldSelf": (BOOL, "Evaluate the rule on creates too, with oldSelf as an empty optional."),
    "reason": (STRING, "The error's reason: FieldValueInvalid, FieldValueForbidden, FieldValueRequired or "
                       "FieldValueDuplicate."),
    "rule": (STRING, "The CEL expression, in terms of self (and oldSelf on updates)."),
}, required=("rule",))
define(_EXT + "ExternalDocumentation", "A link to more documentation.", {
    "description": (STRING, "What the link is about."),
    "url": (STRING, "The link."),
})
define_scalar(_EXT + "JSON", "Any JSON value: an object, array, string, number, boolean or null.", {}, {})
define_scalar(_EXT + "JSONSchemaPropsOrArray", "A schema, or a list of schemas.", {}, {})
define_scalar(_EXT + "JSONSchemaPropsOrBool", "A schema, or a boolean (false forbids, true allows anything).",
              {}, {})
define_scalar(_EXT + "JSONSchemaPropsOrStringArray", "A schema, or a list of field names.", {}, {})
