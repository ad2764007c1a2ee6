"""Scheduler profiles: the v1.35 default and loading a ``KubeSchedulerConfiguration``.

Upstream: ``pkg/scheduler/apis/config/v1/{default_plugins,defaults}.go`` (plugins
enabled through ``multiPoint`` in profile order, score weights), the merge of a
user's plugin sets with the defaults, the framework's ``multiPoint`` expansion
(``disabled: [{name: "*"}]`` included) and the validation of plugin args.
Errors come back as ``<field path>: <problem>`` messages, the way kubectl prints them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import yaml

from clusterviz.apimachinery import field as fe
from clusterviz.scheduler.framework import ClusterEventWithHint
from clusterviz.scheduler.plugins import (
    BIND,
    EXTENSION_POINTS,
    QUEUE_SORT,
    REGISTRY,
    SCORE,
    build,
)
from clusterviz.scheduler.plugins.node_affinity import parse_node_selector, parse_node_selector_term
from clusterviz.scheduler.plugins.node_resources_fit import SCORING_STRATEGY_TYPES

API_VERSION = "kubescheduler.config.k8s.io/v1"
KIND = "KubeSchedulerConfiguration"
DEFAULT_SCHEDULER_NAME = "default-scheduler"
MULTI_POINT = "multiPoint"
CLASSROOM_PERCENTAGE_OF_NODES_TO_SCORE = 100
# Where a cluster keeps its editable configuration (``kubectl edit configmap -n kube-system kube-scheduler``).
CONFIG_MAP_NAMESPACE = "kube-system"
CONFIG_MAP_NAME = "kube-scheduler"
CONFIG_MAP_KEY = "config.yaml"

# default_plugins.go (v1.35), in order, with score weights (0 = none given: a score plugin then weighs 1).
DEFAULT_MULTI_POINT: tuple[tuple[str, int], ...] = (
    ("SchedulingGates", 0),
    ("PrioritySort", 0),
    ("NodeUnschedulable", 0),
    ("NodeName", 0),
    ("TaintToleration", 3),
    ("NodeAffinity", 2),
    ("NodePorts", 0),
    ("NodeResourcesFit", 1),
    ("VolumeRestrictions", 0),
    ("NodeVolumeLimits", 0),
    ("VolumeBinding", 0),
    ("VolumeZone", 0),
    ("PodTopologySpread", 2),
    ("InterPodAffinity", 2),
    ("DynamicResources", 0),
    ("DefaultPreemption", 0),
    ("NodeResourcesBalancedAllocation", 1),
    ("ImageLocality", 1),
    ("DefaultBinder", 0),
)


class ConfigurationError(ValueError):
    """An invalid KubeSchedulerConfiguration; ``messages`` lists every problem."""

    def __init__(self, messages: Sequence[str]) -> None:
        super().__init__("; ".join(messages))
        self.messages = list(messages)


@dataclass(frozen=True)
class Profile:
    """One scheduling profile: plugins per extension point (in order), score weights, args."""

    scheduler_name: str
    plugins: Mapping[str, tuple[str, ...]]
    weights: Mapping[str, int]
    args: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    percentage_of_nodes_to_score: int | None = None
    instances: Mapping[str, Any] = field(default_factory=dict, compare=False, repr=False)

    def at(self, point: str) -> list[Any]:
        """The plugin instances enabled at an extension point, in order."""
        return [self.instances[name] for name in self.plugins.get(point, ())]

    def weight(self, name: str) -> int:
        """A score plugin's weight."""
        return self.weights.get(name, 1)

    def plugin(self, name: str) -> Any:
        """A plugin instance by name (KeyError if not enabled anywhere)."""
        return self.instances[name]

    def events_to_register(self) -> dict[str, list[ClusterEventWithHint]]:
        """Plugin name -> the cluster events it registers (for the scheduling queue)."""
        return {name: plugin.events_to_register() for name, plugin in self.instances.items()}


@dataclass(frozen=True)
class SchedulerConfiguration:
    """A loaded KubeSchedulerConfiguration: profiles plus the queue's backoff settings."""

    profiles: tuple[Profile, ...]
    percentage_of_nodes_to_score: int = 0
    pod_initial_backoff_seconds: int = 1
    pod_max_backoff_seconds: int = 10

    @property
    def profile(self) -> Profile:
        """The first profile (the one clusterviz's scheduler uses)."""
        return self.profiles[0]


def default_profile(percentage_of_nodes_to_score: int | None = CLASSROOM_PERCENTAGE_OF_NODES_TO_SCORE) -> Profile:
    """The v1.35 default profile; clusterviz's classroom default scores every node (100 %)."""
    config: dict[str, Any] = {"profiles": [{"schedulerName": DEFAULT_SCHEDULER_NAME}]}
    if percentage_of_nodes_to_score is not None:
        config["profiles"][0]["percentageOfNodesToScore"] = percentage_of_nodes_to_score
    return load_configuration(config).profile


def upstream_default_profile() -> Profile:
    """Exactly upstream's default: adaptive percentageOfNodesToScore."""
    return default_profile(None)


def validate_configuration(config: Mapping[str, Any] | None) -> list[str]:
    """Every problem of a configuration as ``path: message`` strings (empty when valid)."""
    try:
        load_configuration(config)
    except ConfigurationError as err:
        return err.messages
    return []


def default_configuration() -> SchedulerConfiguration:
    """The classroom configuration in force while a cluster has no ``kube-scheduler`` ConfigMap."""
    return SchedulerConfiguration((default_profile(),), CLASSROOM_PERCENTAGE_OF_NODES_TO_SCORE)


def parse_configuration(text: str) -> SchedulerConfiguration:
    """Load the YAML text of a ConfigMap's ``config.yaml``; raise ConfigurationError listing every problem."""
    try:
        # safe_load: the text comes from any user allowed to write the ConfigMap.
        config = yaml.safe_load(text)
    except yaml.YAMLError as err:
        raise ConfigurationError([f"invalid YAML: {err}"]) from err
    if config is not None and not isinstance(config, Mapping):
        raise ConfigurationError([f"must be a {KIND} object, not {type(config).__name__}"])
    try:
        return load_configuration(config)
    except ConfigurationError:
        raise
    except (AttributeError, TypeError, KeyError, ValueError) as err:
        # A list or scalar where an object belongs; the validators expect the decoded shape.
        raise ConfigurationError([f"malformed {KIND}: {err}"]) from err


def configuration_errors(text: str) -> list[str]:
    """Every problem of a ``config.yaml`` text as ``path: message`` strings (empty when valid)."""
    try:
        parse_configuration(text)
    except ConfigurationError as err:
        return err.messages
    return []


_PLUGIN_SET_FIELDS = {"enabled": {"name": None, "weight": None}, "disabled": {"name": None}}
_PROFILE_FIELDS = {
    "schedulerName": None,
    "percentageOfNodesToScore": None,
    "plugins": {point: _PLUGIN_SET_FIELDS for point in (MULTI_POINT, *EXTENSION_POINTS)},
    "pluginConfig": {"name": None, "args": None},  # args are each plugin's own type, checked by its loader
}
# The fields of KubeSchedulerConfiguration v1; None: a value whose inside is not checked here.
CONFIGURATION_FIELDS: Mapping[str, Any] = {
    "apiVersion": None,
    "kind": None,
    "parallelism": None,
    "leaderElection": None,
    "clientConnection": None,
    "healthzBindAddress": None,
    "metricsBindAddress": None,
    "enableProfiling": None,
    "enableContentionProfiling": None,
    "percentageOfNodesToScore": None,
    "podInitialBackoffSeconds": None,
    "podMaxBackoffSeconds": None,
    "profiles": _PROFILE_FIELDS,
    "extenders": None,
    "delayCacheUntilActive": None,
}


def unknown_fields(value: Any, fields: Mapping[str, Any] = CONFIGURATION_FIELDS, path: str = "") -> list[str]:
    """Paths of the keys the v1 type does not have, as upstream's strict decoding names them."""
    if isinstance(value, list):
        return [p for i, item in enumerate(value) for p in unknown_fields(item, fields, f"{path}[{i}]")]
    if not isinstance(value, Mapping):
        return []
    out = []
    for key, inner in value.items():
        where = f"{path}.{key}" if path else str(key)
        if key not in fields:
            out.append(where)
        elif fields[key] is not None:
            out.extend(unknown_fields(inner, fields[key], where))
    return out


def load_configuration(config: Mapping[str, Any] | None) -> SchedulerConfiguration:
    """Default, merge, expand and validate a KubeSchedulerConfiguration dict; raise ConfigurationError."""
    config = config or {}
    errors: list[fe.FieldError] = []
    if not isinstance(config, Mapping):
        raise ConfigurationError(["configuration must be an object"])
    unknown = unknown_fields(config)
    if unknown:
        # Upstream decodes the file strictly and stops there: a typo never silently means a default.
        raise ConfigurationError([f'strict decoding error: unknown field "{path}"' for path in unknown])
    if config.get("apiVersion") not in (None, API_VERSION):
        errors.append(fe.not_supported("apiVersion", config.get("apiVersion"), [API_VERSION]))
    if config.get("kind") not in (None, KIND):
        errors.append(fe.not_supported("kind", config.get("kind"), [KIND]))
    percentage = _int_field(config, "percentageOfNodesToScore", 0, errors)
    if percentage is not None and not 0 <= percentage <= 100:
        errors.append(fe.invalid("percentageOfNodesToScore", percentage, "not in valid range [0-100]"))
    initial = _int_field(config, "podInitialBackoffSeconds", 1, errors)
    maximum = _int_field(config, "podMaxBackoffSeconds", 10, errors)
    if initial is not None and initial <= 0:
        errors.append(fe.invalid("podInitialBackoffSeconds", initial, "must be greater than 0"))
    if initial is not None and maximum is not None and maximum < initial:
        errors.append(
            fe.invalid("podMaxBackoffSeconds", maximum, "must be greater than or equal to PodInitialBackoffSeconds")
        )
    raw_profiles = config.get("profiles") or [{}]
    profiles: list[Profile] = []
    seen: set[str] = set()
    for i, raw in enumerate(raw_profiles if isinstance(raw_profiles, list) else []):
        path = f"profiles[{i}]"
        name = (raw or {}).get("schedulerName") or DEFAULT_SCHEDULER_NAME
        if name in seen:
            errors.append(fe.duplicate(f"{path}.schedulerName", name))
        seen.add(name)
        profile = _build_profile(raw or {}, name, path, errors)
        if profile is not None:
            profiles.append(profile)
    if not isinstance(raw_profiles, list):
        errors.append(fe.type_invalid("profiles", raw_profiles, "must be a list"))
    if errors:
        raise ConfigurationError([str(e) for e in errors])
    return SchedulerConfiguration(tuple(profiles), percentage or 0, initial or 1, maximum or 10)


def _int_field(
    obj: Mapping[str, Any], key: str, default: int | None, errors: list[fe.FieldError], path: str = ""
) -> int | None:
    value = obj.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        errors.append(fe.type_invalid(f"{path}{key}", value, "must be an integer"))
        return None
    return value


def _plugin_set(raw: Any, path: str, errors: list[fe.FieldError]) -> tuple[list[tuple[str, int]], list[str]]:
    raw = raw or {}
    enabled = []
    for i, item in enumerate(raw.get("enabled") or []):
        name = (item or {}).get("name") or ""
        weight = (item or {}).get("weight") or 0
        if not isinstance(weight, int) or isinstance(weight, bool) or weight < 0:
            errors.append(fe.invalid(f"{path}.enabled[{i}].weight", weight, "must be a non-negative integer"))
            weight = 0
        enabled.append((name, weight))
    disabled = [(item or {}).get("name") or "" for item in raw.get("disabled") or []]
    return enabled, disabled


def _merge(
    default: list[tuple[str, int]], enabled: list[tuple[str, int]], disabled: list[str]
) -> list[tuple[str, int]]:
    # mergePluginSet: a re-configured default keeps its place; other custom plugins go last.
    custom = {name: (i, (name, w)) for i, (name, w) in enumerate(enabled)}
    used: set[int] = set()
    merged = []
    if "*" not in disabled:
        for name, weight in default:
            if name in disabled:
                continue
            if name in custom:
                index, plugin = custom[name]
                used.add(index)
                merged.append(plugin)
            else:
                merged.append((name, weight))
    merged.extend(p for i, p in enumerate(enabled) if i not in used)
    return merged


def _build_profile(raw: Mapping[str, Any], name: str, path: str, errors: list[fe.FieldError]) -> Profile | None:
    start = len(errors)
    raw_plugins = raw.get("plugins") or {}
    sets = {
        point: _plugin_set(raw_plugins.get(point), f"{path}.plugins.{point}", errors)
        for point in (MULTI_POINT, *EXTENSION_POINTS)
    }
    multi_enabled, multi_disabled = sets[MULTI_POINT]
    multi = _merge(list(DEFAULT_MULTI_POINT), multi_enabled, multi_disabled)
    for i, (plugin, _) in enumerate(multi):
        if plugin not in REGISTRY:
            errors.append(fe.not_found(f"{path}.plugins.multiPoint.enabled[{i}].name", plugin))
    plugins: dict[str, tuple[str, ...]] = {}
    explicit_weights: dict[str, int] = {}
    for point in EXTENSION_POINTS:
        enabled, disabled = sets[point]
        specific: list[str] = []
        for i, (plugin, weight) in enumerate(enabled):
            where = f"{path}.plugins.{point}.enabled[{i}].name"
            if plugin not in REGISTRY:
                errors.append(fe.not_found(where, plugin))
            elif point not in REGISTRY[plugin].points:
                errors.append(fe.invalid(where, plugin, f'plugin "{plugin}" does not extend {point} plugin'))
            elif plugin in specific:
                errors.append(fe.invalid(where, plugin, f'plugin "{plugin}" already registered as {point} plugin'))
            else:
                specific.append(plugin)
                if point == SCORE:
                    explicit_weights.setdefault(plugin, weight or 1)
        if "*" in disabled:
            plugins[point] = tuple(specific)
            continue
        overrides, from_multi = [], []
        for plugin, _ in multi:
            if plugin not in REGISTRY or point not in REGISTRY[plugin].points or plugin in disabled:
                continue
            if plugin in specific:
                overrides.append(plugin)
            elif plugin in from_multi:
                errors.append(
                    fe.invalid(
                        f"{path}.plugins.multiPoint", plugin, f'plugin "{plugin}" already registered as {point} plugin'
                    )
                )
            else:
                from_multi.append(plugin)
        ordered = [p for p in specific if p in overrides] + from_multi + [p for p in specific if p not in overrides]
        plugins[point] = tuple(ordered)
    weights = dict(explicit_weights)
    for plugin, weight in multi:
        if plugin in REGISTRY and SCORE in REGISTRY[plugin].points:
            weights.setdefault(plugin, weight or 1)
    if len(plugins[QUEUE_SORT]) != 1:
        errors.append(
            fe.invalid(
                f"{path}.plugins.queueSort", list(plugins[QUEUE_SORT]), "exactly one queue sort plugin is required"
            )
        )
    if not plugins[BIND]:
        errors.append(fe.invalid(f"{path}.plugins.bind", [], "at least one bind plugin is needed"))
    args = _plugin_args(raw.get("pluginConfig") or [], f"{path}.pluginConfig", errors)
    percentage = _int_field(raw, "percentageOfNodesToScore", None, errors, f"{path}.")
    if percentage is not None and not 0 <= percentage <= 100:
        errors.append(fe.invalid(f"{path}.percentageOfNodesToScore", percentage, "not in valid range [0-100]"))
    if len(errors) > start:
        return None
    enabled_names = {p for names in plugins.values() for p in names}
    instances = {p: build(p, args.get(p)) for p in REGISTRY if p in enabled_names}
    scored = set(plugins[SCORE])
    return Profile(name, plugins, {p: w for p, w in weights.items() if p in scored}, args, percentage, instances)


def _plugin_args(raw: Sequence[Any], path: str, errors: list[fe.FieldError]) -> dict[str, Mapping[str, Any]]:
    out: dict[str, Mapping[str, Any]] = {}
    for i, item in enumerate(raw):
        name, args = (item or {}).get("name") or "", (item or {}).get("args") or {}
        where = f"{path}[{i}]"
        if name not in REGISTRY:
            errors.append(fe.not_found(f"{where}.name", name))
            continue
        if name in out:
            errors.append(fe.duplicate(where, name))
            continue
        validator = _ARG_VALIDATORS.get(name)
        if validator is not None:
            validator(args, f"{where}.args", errors)
        out[name] = args
    return out


def _validate_fit_args(args: Mapping[str, Any], path: str, errors: list[fe.FieldError]) -> None:
    for i, group in enumerate(args.get("ignoredResourceGroups") or []):
        if "/" in group:
            errors.append(
                fe.invalid(f"{path}.ignoredResourceGroups[{i}]", group, "resource group name can't contain '/'")
            )
    strategy = args.get("scoringStrategy")
    if strategy is None:
        return
    spath = f"{path}.scoringStrategy"
    kind = strategy.get("type") or "LeastAllocated"
    if kind not in SCORING_STRATEGY_TYPES:
        errors.append(fe.not_supported(f"{spath}.type", kind, sorted(SCORING_STRATEGY_TYPES)))
    for i, res in enumerate(strategy.get("resources") or []):
        weight = res.get("weight") or 1  # 0 means "default", which is 1
        if not isinstance(weight, int) or not 0 < weight <= 100:
            errors.append(
                fe.invalid(
                    f"{spath}.resources[{i}].weight",
                    weight,
                    f"resource weight of {res.get('name')} not in valid range (0, 100]",
                )
            )
    ratio = strategy.get("requestedToCapacityRatio")
    if ratio is not None or kind == "RequestedToCapacityRatio":
        _validate_shape((ratio or {}).get("shape") or [], f"{spath}.shape", errors)


def _validate_shape(shape: Sequence[Mapping[str, Any]], path: str, errors: list[fe.FieldError]) -> None:
    if not shape:
        errors.append(fe.required(path, "at least one point must be specified"))
        return
    for i in range(1, len(shape)):
        if shape[i - 1].get("utilization", 0) >= shape[i].get("utilization", 0):
            errors.append(
                fe.invalid(
                    f"{path}[{i}].utilization",
                    shape[i].get("utilization", 0),
                    "values must be sorted in increasing order",
                )
            )
            break
    for i, point in enumerate(shape):
        utilization, score = point.get("utilization", 0), point.get("score", 0)
        if not 0 <= utilization <= 100:
            errors.append(fe.invalid(f"{path}[{i}].utilization", utilization, "not in valid range [0, 100]"))
        if not 0 <= score <= 10:
            errors.append(fe.invalid(f"{path}[{i}].score", score, "not in valid range [0, 10]"))


def _validate_balanced_args(args: Mapping[str, Any], path: str, errors: list[fe.FieldError]) -> None:
    seen: set[str] = set()
    for i, res in enumerate(args.get("resources") or []):
        if res.get("name") in seen:
            errors.append(fe.duplicate(f"{path}.resources[{i}].name", res.get("name")))
        seen.add(res.get("name"))
        weight = res.get("weight") or 1
        if weight != 1:
            errors.append(fe.invalid(f"{path}.resources[{i}].weight", weight, "must be 1"))


def _validate_ipa_args(args: Mapping[str, Any], path: str, errors: list[fe.FieldError]) -> None:
    weight = args.get("hardPodAffinityWeight", 1)
    if not isinstance(weight, int) or not 0 <= weight <= 100:
        errors.append(fe.invalid(f"{path}.hardPodAffinityWeight", weight, "not in valid range [0, 100]"))


def _validate_pts_args(args: Mapping[str, Any], path: str, errors: list[fe.FieldError]) -> None:
    defaulting = args.get("defaultingType") or "System"
    constraints = args.get("defaultConstraints") or []
    if defaulting not in ("System", "List"):
        errors.append(fe.not_supported(f"{path}.defaultingType", defaulting, ["System", "List"]))
    elif defaulting == "System" and constraints:
        errors.append(fe.invalid(f"{path}.defaultingType", defaulting, "when .defaultConstraints are not empty"))
    seen: set[tuple[str, str]] = set()
    for i, c in enumerate(constraints):
        p = f"{path}.defaultConstraints[{i}]"
        if not isinstance(c.get("maxSkew"), int) or c.get("maxSkew", 0) <= 0:
            errors.append(fe.invalid(f"{p}.maxSkew", c.get("maxSkew"), "not in valid range (0, inf)"))
        if not c.get("topologyKey"):
            errors.append(fe.required(f"{p}.topologyKey", "can not be empty"))
        action = c.get("whenUnsatisfiable") or ""
        if not action:
            errors.append(fe.required(f"{p}.whenUnsatisfiable", "can not be empty"))
        elif action not in ("DoNotSchedule", "ScheduleAnyway"):
            errors.append(fe.not_supported(f"{p}.whenUnsatisfiable", action, ["DoNotSchedule", "ScheduleAnyway"]))
        if c.get("labelSelector") is not None:
            errors.append(
                fe.forbidden(
                    f"{p}.labelSelector", "constraint must not define a selector, as they deduced for each pod"
                )
            )
        key = (c.get("topologyKey") or "", action)
        if key in seen:
            errors.append(fe.duplicate(f"{path}.defaultConstraints[{i}]", f"{{{key[0]}, {key[1]}}}"))
        seen.add(key)


def _validate_node_affinity_args(args: Mapping[str, Any], path: str, errors: list[fe.FieldError]) -> None:
    added = args.get("addedAffinity") or {}
    required = added.get("requiredDuringSchedulingIgnoredDuringExecution")
    terms = list(parse_node_selector(required)) if required is not None else []
    for raw in added.get("preferredDuringSchedulingIgnoredDuringExecution") or []:
        term = parse_node_selector_term(raw.get("preference") or {})
        if term is not None:
            terms.append(term)
    for term in terms:
        for problem in term.errors:
            errors.append(fe.invalid(f"{path}.addedAffinity", "", problem))


_ARG_VALIDATORS = {
    "NodeResourcesFit": _validate_fit_args,
    "NodeResourcesBalancedAllocation": _validate_balanced_args,
    "InterPodAffinity": _validate_ipa_args,
    "PodTopologySpread": _validate_pts_args,
    "NodeAffinity": _validate_node_affinity_args,
}
