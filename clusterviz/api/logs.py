"""GET pods/<name>/log: what a simulated container printed.

The real API server proxies a log read to the Pod's kubelet, which reads the
container's log file. Here a container prints what its behaviour says
(``kubelet.behaviour``: a server's start-up lines, a script's echo output,
its environment), stamped with the start time the kubelet reported for that
run, so the read is a pure function of the Pod's status and needs no hop.
``previous`` reads the run before a restart (``lastState.terminated``).
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty
from clusterviz.kubelet.behaviour import SERVERS, Behaviour, behaviour_of
from clusterviz.kubelet.config_refs import ConfigRefError, Resolver

from . import clock, errors
from .handlers import _get, cluster_of, not_found, store_key
from .request import ApiRequest, ApiResponse, ResourcePath

# Server start-up lines carry the start time in each server's own format.
_FORMATS = {
    "nginx": "%Y/%m/%d %H:%M:%S",
    "httpd": "%a %b %d %H:%M:%S.%f %Y",
    "redis": "%d %b %Y %H:%M:%S.000",
    "iso": "%Y-%m-%dT%H:%M:%S.000000Z",
}


async def read(req: ApiRequest, rp: ResourcePath) -> ApiResponse:
    """The container's log as text/plain, with kubectl's options (container, previous, tailLines, sinceSeconds,
    timestamps, limitBytes)."""
    cid = await cluster_of(req)
    pod_path = ResourcePath(rp.resource, rp.namespace, rp.name, "")
    pod = await _get(cid, store_key(pod_path))
    if pod is None:
        raise not_found(pod_path)
    spec = _container(pod, req.query.get("container", ""))
    status = _status_of(pod, str(spec.get("name", "")))
    run = _run(pod, spec, status, req.flag("previous"))
    started = clock.parse(str(run.get("startedAt") or ""))
    if started is None:
        raise errors.bad_request(f'container "{spec.get("name")}" in pod "{rp.name}" is waiting to start: no start time')
    finished = clock.parse(str(run.get("finishedAt") or "")) or clock.now_precise()

    async def fetch(plural: str, namespace: str, name: str) -> dict[str, Any] | None:
        from .client import find_resource  # the client imports the server, which imports this module

        resource = find_resource(plural)
        return await _get(cid, store_key(ResourcePath(resource, namespace, name, "")))

    try:
        env = await Resolver(fetch, pod).container_env(spec)
    except ConfigRefError:
        env = {}
    lines = _lines(behaviour_of(pod, spec, env), started, finished)
    return ApiResponse(200, _render(lines, req), content_type="text/plain")


def _container(pod: dict[str, Any], name: str) -> dict[str, Any]:
    specs = [c for c in dict_or_empty(pod.get("spec")).get("containers") or [] if isinstance(c, dict)]
    pod_name = dict_or_empty(pod.get("metadata")).get("name", "")
    if not name:
        if len(specs) == 1:
            return specs[0]
        names = " ".join(str(c.get("name")) for c in specs)
        raise errors.bad_request(f"a container name must be specified for pod {pod_name}, choose one of: [{names}]")
    for spec in specs:
        if spec.get("name") == name:
            return spec
    raise errors.bad_request(f"container {name} is not valid for pod {pod_name}")


def _status_of(pod: dict[str, Any], name: str) -> dict[str, Any]:
    for status in dict_or_empty(pod.get("status")).get("containerStatuses") or []:
        if isinstance(status, dict) and status.get("name") == name:
            return status
    return {}


def _run(pod: dict[str, Any], spec: dict[str, Any], status: dict[str, Any], previous: bool) -> dict[str, Any]:
    """The run whose output is asked for: its startedAt and (if it ended) finishedAt."""
    name, pod_name = spec.get("name"), dict_or_empty(pod.get("metadata")).get("name", "")
    state, last = dict_or_empty(status.get("state")), dict_or_empty(status.get("lastState"))
    if previous:
        if "terminated" not in last:
            raise errors.bad_request(f'previous terminated container "{name}" in pod "{pod_name}" not found')
        return dict_or_empty(last["terminated"])
    if "running" in state:
        return dict_or_empty(state["running"])
    if "terminated" in state:
        return dict_or_empty(state["terminated"])
    if "terminated" in last:
        return dict_or_empty(last["terminated"])  # waiting to restart: its last run's output
    reason = dict_or_empty(state.get("waiting")).get("reason") or "ContainerCreating"
    raise errors.bad_request(f'container "{name}" in pod "{pod_name}" is waiting to start: {reason}')


def _lines(behaviour: Behaviour, started: datetime, finished: datetime) -> list[tuple[datetime, str]]:
    ran = (finished - started).total_seconds()
    out: list[tuple[datetime, str]] = []
    if behaviour.server:
        stamps = {key: started.strftime(fmt) for key, fmt in _FORMATS.items()}
        out.extend((started, line.format(**stamps)) for line in SERVERS.get(behaviour.server, ()))
    out.extend((started + timedelta(seconds=line.at), line.text) for line in behaviour.output if line.at <= ran)
    return out


def _render(lines: list[tuple[datetime, str]], req: ApiRequest) -> bytes:
    since = req.query.get("sinceSeconds")
    if since:
        try:
            cutoff = clock.now_precise() - timedelta(seconds=int(since))
        except ValueError:
            raise errors.bad_request(f"invalid sinceSeconds: {since!r}") from None
        lines = [(at, text) for at, text in lines if at >= cutoff]
    tail = req.query.get("tailLines")
    if tail:
        try:
            count = int(tail)
        except ValueError:
            raise errors.bad_request(f"invalid tailLines: {tail!r}") from None
        lines = lines[-count:] if count > 0 else []
    stamped = req.flag("timestamps")
    text = "".join(
        (f"{at.strftime('%Y-%m-%dT%H:%M:%S.%f')}000Z {line}\n" if stamped else f"{line}\n") for at, line in lines
    ).encode()
    limit = req.query.get("limitBytes")
    if limit and limit.isdigit():
        text = text[: int(limit)]
    return text
