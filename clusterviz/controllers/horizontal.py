"""The horizontal Pod autoscaler: sets each scale target's replicas from its Pods' metrics, as upstream's.

Every 15 simulated seconds (--horizontal-pod-autoscaler-sync-period) each
HorizontalPodAutoscaler is reconciled: the target's scale subresource is read,
the Pods its selector picks and their metrics (metrics.k8s.io, as ``kubectl
top`` reads them) give a recommendation per metric (the highest wins), the
behavior (or the classic rules) turns it into the replicas to set, the scale
is written, and the status, conditions and events say what happened and why.

A resync is background work unless a recommendation is held back (by a
stabilisation window or a rate), so fast-forward runs on until a held
scale-down happens and then lets the cluster settle.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from clusterviz.api import clock, errors, resources
from clusterviz.api.informer import Handler, key_of
from clusterviz.apimachinery import labels
from clusterviz.apimachinery.quantity import parse_quantity
from clusterviz.apimachinery.unstructured import deep_copy

from . import horizontal_behavior as behavior_rules
from .horizontal_replicas import ReplicaCalcError, raw_resource_replicas, resource_replicas
from .util import Obj, Worker, labels_of, meta, spec, status

if TYPE_CHECKING:
    from .manager import ControllerManager

COMPONENT = "horizontal-pod-autoscaler"
SYNC_PERIOD = 15.0
# A warning that repeats every sync is recorded again only this often, so a failing autoscaler lets
# fast-forward settle (each event is a write).
WARNING_REPEAT_SECONDS = 300.0
# The custom and external metrics APIs are not served: what asking them answers.
NO_METRICS_API = {
    "Pods": ("FailedGetPodsMetric", "custom.metrics.k8s.io"),
    "Object": ("FailedGetObjectMetric", "custom.metrics.k8s.io"),
    "External": ("FailedGetExternalMetric", "external.metrics.k8s.io"),
}


class MetricError(Exception):
    """A metric that gave no recommendation, with the ScalingActive condition it sets."""

    def __init__(self, reason: str, message: str) -> None:
        super().__init__(message)
        self.reason = reason


class HorizontalController:
    """Reconciles HorizontalPodAutoscalers against their targets' scale."""

    def __init__(self, cm: ControllerManager) -> None:
        self.cm = cm
        self.engine = cm.engine
        self.client = cm.client
        self.recorder = cm.ctx.recorder(COMPONENT)
        self.autoscalers = cm.informers["horizontalpodautoscalers"]
        self.pods = cm.informers["pods"]
        self.worker = Worker(cm.engine, f"controller-manager/{COMPONENT}", self.sync)
        self.histories: dict[str, behavior_rules.History] = {}
        self._warned: dict[tuple[str, str, str], float] = {}
        self.autoscalers.add_handler(Handler(self._queue, self._changed, self._forget))

    def start(self) -> None:
        """Start the worker loop."""
        self.worker.start()

    def _queue(self, hpa: Obj) -> None:
        # As upstream's queue does, a new or changed autoscaler waits one sync period.
        self.worker.add_after(key_of(hpa), SYNC_PERIOD, background=True)

    def _changed(self, old: Obj, new: Obj) -> None:
        if spec(old) != spec(new):
            self._queue(new)

    def _forget(self, hpa: Obj) -> None:
        key = key_of(hpa)
        self.histories.pop(key, None)
        self._warned = {k: v for k, v in self._warned.items() if k[0] != key}

    async def sync(self, key: str) -> None:
        """reconcileAutoscaler, then the next sync one period later."""
        hpa = self.autoscalers.get(key)
        if hpa is None:
            return
        held = await self._reconcile(key, deep_copy(hpa))
        if self.autoscalers.get(key) is not None:
            self.worker.add_after(key, SYNC_PERIOD, background=not held)

    async def _warn(self, key: str, hpa: Obj, reason: str, message: str) -> None:
        last = self._warned.get((key, reason, message))
        if last is not None and self.engine.now - last < WARNING_REPEAT_SECONDS:
            return
        self._warned[(key, reason, message)] = self.engine.now
        await self.recorder.event(hpa, "Warning", reason, message)

    async def _reconcile(self, key: str, hpa: Obj) -> bool:
        """One reconcile; whether a recommendation is held back (the next sync has work to do)."""
        original = deep_copy(status(hpa))
        hpa["status"] = deep_copy(original)  # a dict from here on
        ref = spec(hpa).get("scaleTargetRef") or {}
        namespace = str(meta(hpa).get("namespace", ""))
        try:
            target = _scale_resource(ref)
            scale = await self.client.get(target, str(ref.get("name", "")), namespace, sub="scale")
        except (errors.StatusError, LookupError) as exc:
            message = exc.message if isinstance(exc, errors.StatusError) else str(exc)
            await self._warn(key, hpa, "FailedGetScale", message)
            _set_condition(hpa, "AbleToScale", "False", "FailedGetScale",
                           f"the HPA controller was unable to get the target's current scale: {message}")
            await self._write_status(hpa, original)
            return False
        _set_condition(hpa, "AbleToScale", "True", "SucceededGetScale",
                       "the HPA controller was able to get the target's current scale")
        current = int(spec(scale).get("replicas") or 0)
        history = self.histories.setdefault(key, behavior_rules.History())
        history.record_initial(current, self.engine.now)
        low = int(spec(hpa).get("minReplicas") or 1)
        high = int(spec(hpa).get("maxReplicas") or 0)
        metric_statuses: list[dict[str, Any]] = []
        reason, held, rescale, desired = "", False, True, 0
        if current == 0 and low != 0:
            rescale = False
            _set_condition(hpa, "ScalingActive", "False", "ScalingDisabled",
                           "scaling is disabled since the replica count of the target is zero")
        elif current > high:
            reason, desired = "Current number of replicas above Spec.MaxReplicas", high
        elif current < low:
            reason, desired = "Current number of replicas below Spec.MinReplicas", low
        else:
            proposal, metric_name, metric_statuses, failure = await self._replicas_for_metrics(key, hpa, scale, current)
            if proposal < 0:
                _set_status(hpa, current, int(status(hpa).get("desiredReplicas") or 0), metric_statuses, False)
                await self._write_status(hpa, original)
                await self._warn(key, hpa, "FailedComputeMetricsReplicas", failure)
                return False
            desired = proposal
            if desired > current:
                reason = f"{metric_name} above target"
            elif desired < current:
                reason = "All metrics below target"
            behavior = spec(hpa).get("behavior")
            if isinstance(behavior, dict):
                result = behavior_rules.normalize_with_behavior(history, behavior, current, desired, low, high,
                                                                self.engine.now)
            else:
                result = behavior_rules.normalize(history, current, desired, low, high, self.engine.now)
            _set_condition(hpa, "AbleToScale", "True", *result.able)
            _set_condition(hpa, "ScalingLimited", "True" if result.is_limited else "False", *result.limited)
            held = result.held
            desired = result.replicas
            rescale = desired != current
        if rescale:
            try:
                await self.client.patch(target, str(ref.get("name", "")), {"spec": {"replicas": desired}}, namespace,
                                        sub="scale")
            except errors.StatusError as exc:
                await self._warn(key, hpa, "FailedRescale", f"New size: {desired}; reason: {reason}; error: {exc.message}")
                _set_condition(hpa, "AbleToScale", "False", "FailedUpdateScale",
                               f"the HPA controller was unable to update the target scale: {exc.message}")
                _set_status(hpa, current, int(status(hpa).get("desiredReplicas") or 0), metric_statuses, False)
                await self._write_status(hpa, original)
                return False
            _set_condition(hpa, "AbleToScale", "True", "SucceededRescale",
                           f"the HPA controller was able to update the target scale to {desired}")
            await self.recorder.event(hpa, "Normal", "SuccessfulRescale", f"New size: {desired}; reason: {reason}")
            history.record_scale(spec(hpa).get("behavior"), current, desired, self.engine.now)
        else:
            desired = current
        _set_status(hpa, current, desired, metric_statuses, rescale)
        await self._write_status(hpa, original)
        return held

    async def _replicas_for_metrics(
        self, key: str, hpa: Obj, scale: Obj, current: int
    ) -> tuple[int, str, list[dict[str, Any]], str]:
        """computeReplicasForMetrics: (the highest proposal or -1, its metric's name, the metrics' statuses, the
        error when no proposal may be used)."""
        selector_text = str(status(scale).get("selector") or "")
        if not selector_text:
            await self._warn(key, hpa, "SelectorRequired", "selector is required")
            _set_condition(hpa, "ScalingActive", "False", "InvalidSelector", "the HPA target's scale is missing a selector")
            return -1, "", [], "selector is required"
        try:
            selector = labels.parse_selector(selector_text)
        except labels.SelectorError as exc:
            message = f"couldn't convert selector into a corresponding internal selector object: {exc}"
            await self._warn(key, hpa, "InvalidSelector", message)
            _set_condition(hpa, "ScalingActive", "False", "InvalidSelector", "the HPA target's scale has an invalid selector")
            return -1, "", [], message
        namespace = str(meta(hpa).get("namespace", ""))
        pods = [p for p in self.pods.cache.values()
                if meta(p).get("namespace") == namespace and selector.matches(labels_of(p))]
        metrics = [m for m in spec(hpa).get("metrics") or [] if isinstance(m, dict)]
        statuses: list[dict[str, Any]] = [{"type": ""} for _ in metrics]
        best, best_name, invalid, first_error, first_condition = 0, "", 0, "", ("", "")
        for i, metric in enumerate(metrics):
            try:
                proposal, name, statuses[i] = await self._replicas_for_metric(metric, current, namespace, selector_text,
                                                                              pods)
            except MetricError as exc:
                await self._warn(key, hpa, exc.reason, str(exc))
                if invalid == 0:
                    first_error = str(exc)
                    first_condition = (exc.reason, f"the HPA was unable to compute the replica count: {exc}")
                invalid += 1
                continue
            if best == 0 or proposal > best:
                best, best_name = proposal, name
        if invalid >= len(metrics) or (invalid > 0 and best < current):
            _set_condition(hpa, "ScalingActive", "False", *first_condition)
            return -1, "", statuses, f"invalid metrics ({invalid} invalid out of {len(metrics)}), first error is: {first_error}"
        _set_condition(hpa, "ScalingActive", "True", "ValidMetricFound",
                       f"the HPA was able to successfully calculate a replica count from {best_name}")
        return best, best_name, statuses, ""

    async def _replicas_for_metric(
        self, metric: dict[str, Any], current: int, namespace: str, selector: str, pods: list[Obj]
    ) -> tuple[int, str, dict[str, Any]]:
        """One metric's (proposal, name, status)."""
        kind = str(metric.get("type", ""))
        if kind in NO_METRICS_API:
            reason, api = NO_METRICS_API[kind]
            source = metric.get(kind.lower()) or {}
            name = (source.get("metric") or {}).get("name", "")
            raise MetricError(reason, f"unable to get metric {name}: unable to fetch metrics from custom metrics API: "
                                      f"no {api} API is served")
        if kind not in ("Resource", "ContainerResource"):
            raise MetricError("InvalidMetricSourceType", f'unknown metric source type "{kind}"')
        field = "resource" if kind == "Resource" else "containerResource"
        source = metric.get(field) or {}
        resource, container = str(source.get("name", "")), str(source.get("container", ""))
        target = source.get("target") or {}
        failed_reason = "FailedGetResourceMetric" if kind == "Resource" else "FailedGetContainerResourceMetric"
        items = (await self.client.list("pods.metrics.k8s.io", namespace, label_selector=selector)).get("items") or []
        now = clock.now()
        current_value: dict[str, Any]
        try:
            if target.get("averageValue") is not None:
                milli = parse_quantity(str(target["averageValue"])).milli_value()
                proposal, usage, _ = raw_resource_replicas(current, milli, resource, pods, items, now, container)
                current_value = {"averageValue": _quantity(usage)}
                name = f"{resource} resource" if kind == "Resource" else f"{resource} container resource"
            elif target.get("averageUtilization") is not None:
                proposal, utilization, raw, _ = resource_replicas(
                    current, int(target["averageUtilization"]), resource, pods, items, now, container)
                current_value = {"averageUtilization": utilization, "averageValue": _quantity(raw)}
                name = (f"{resource} resource utilization (percentage of request)" if kind == "Resource"
                        else f"{resource} container resource utilization (percentage of request)")
            else:
                raise MetricError(failed_reason, "invalid resource metric source: neither an average utilization target "
                                                 "nor an average value (usage) target was set")
        except ReplicaCalcError as exc:
            what = "usage" if target.get("averageValue") is not None else "utilization"
            raise MetricError(failed_reason, f"failed to get {resource} {what}: {exc}") from None
        body: dict[str, Any] = {"name": resource, "current": current_value}
        if container:
            body = {"container": container, **body}
        return proposal, name, {"type": kind, field: body}

    async def _write_status(self, hpa: Obj, original: dict[str, Any]) -> None:
        """updateStatusIfNeeded."""
        if status(hpa) == original:
            return
        try:
            await self.client.update(hpa, sub="status")
        except errors.StatusError as exc:
            if exc.code not in (404, 409):  # gone, or changed: the next sync writes it again
                raise


def _scale_resource(ref: dict[str, Any]) -> str:
    """The plural (``deployments.apps``) whose scale subresource the reference names."""
    api_version = str(ref.get("apiVersion") or "")
    group = api_version.rsplit("/", 1)[0] if "/" in api_version else ""
    kind = str(ref.get("kind") or "")
    found = resources.by_kind(group, kind)
    if found is None or "scale" not in found.subresources:
        raise LookupError(f'no matches for kind "{kind}" in group "{group}"')
    return found.key


def _quantity(milli: int) -> str:
    """A milli-unit amount as resource.NewMilliQuantity(..., DecimalSI) prints it."""
    return f"{milli // 1000}" if milli % 1000 == 0 else f"{milli}m"


def _set_condition(hpa: Obj, type_: str, value: str, reason: str, message: str) -> None:
    """setCondition: the transition time moves only when the status does; conditions keep their first order."""
    conditions = hpa["status"].setdefault("conditions", [])
    existing = next((c for c in conditions if c.get("type") == type_), None)
    if existing is None:
        existing = {"type": type_}
        conditions.append(existing)
    if existing.get("status") != value:
        existing["lastTransitionTime"] = clock.rfc3339()
    existing.update(status=value, reason=reason, message=message)


def _set_status(hpa: Obj, current: int, desired: int, metric_statuses: list[dict[str, Any]], rescaled: bool) -> None:
    """setStatus: the counts and metrics now; lastScaleTime moves when the scale was written."""
    old = status(hpa)
    new: dict[str, Any] = {"currentReplicas": current, "desiredReplicas": desired,
                           "currentMetrics": metric_statuses or None}
    if rescaled:
        new["lastScaleTime"] = clock.rfc3339()
    elif old.get("lastScaleTime"):
        new["lastScaleTime"] = old["lastScaleTime"]
    if old.get("conditions"):
        new["conditions"] = old["conditions"]
    if not current:
        del new["currentReplicas"]  # omitempty in autoscaling/v2
    hpa["status"] = new
