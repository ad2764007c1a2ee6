"""GET pods/<name>/log: what a simulated container printed.

The real API server proxies a log read to the Pod's kubelet, which reads the
container's log file. Here a container prints what its behaviour says
(``kubelet.behaviour``: a server's start-up lines, a script's echo output,
its environment), stamped with the start time the kubelet reported for that
run, so the read is a pure function of the Pod's status and needs no hop.
``previous`` reads the run before a restart (``lastState.terminated``).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from clusterviz.apimachinery.unstructured import dict_or_empty
from clusterviz.kubelet.behaviour import SERVERS, Behaviour, behaviour_of
from clusterviz.kubelet.config_refs import ConfigRefError, Resolver
from clusterviz.store import kv

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
    timestamps, limitBytes, follow)."""
    cid = await cluster_of(req)
    pod_path = ResourcePath(rp.resource, rp.namespace, rp.name, "")
    pod = await _get(cid, store_key(pod_path))
    if pod is None:
        raise not_found(pod_path)
    spec = _container(pod, req.query.get("container", ""))
    status = _status_of(pod, str(spec.get("name", "")))
    previous = req.flag("previous")
    run = _run(pod, spec, status, previous)
    started = clock.parse(str(run.get("startedAt") or ""))
    if started is None:
        raise errors.bad_request(f'container "{spec.get("name")}" in pod "{rp.name}" is waiting to start: no start time')
    finished = clock.parse(str(run.get("finishedAt") or ""))

    async def fetch(plural: str, namespace: str, name: str) -> dict[str, Any] | None:
        from .client import find_resource  # the client imports the server, which imports this module

        resource = find_resource(plural)
        return await _get(cid, store_key(ResourcePath(resource, namespace, name, "")))

    try:
        env = await Resolver(fetch, pod).container_env(spec)
    except ConfigRefError:
        env = {}
    behaviour = behaviour_of(pod, spec, env)
    # The cluster's simulated time, also after this request's context has ended (a followed log).
    now = req.gate.wall if req.gate is not None else clock.now_precise
    if req.flag("follow") and not previous and finished is None:
        run_of = _Run(cid, store_key(pod_path), str(spec.get("name", "")), started)
        return ApiResponse(200, chunks=_follow(run_of, behaviour, req, now), content_type="text/plain")
    moment = now()
    lines = _select(_lines(behaviour, started, finished or moment), req, moment)
    return ApiResponse(200, _limited(_format(lines, req.flag("timestamps")), req), content_type="text/plain")


# How often a followed log looks for new lines, in wall seconds: simulated time moves between writes too.
FOLLOW_POLL_SECONDS = 0.2


@dataclass(frozen=True)
class _Run:
    """One run of a container, found again in its Pod's status as time goes on."""

    cid: int
    key: kv.Key
    container: str
    started: datetime

    async def finished(self) -> datetime | None | bool:
        """When the run ended; None while it runs; True when it is gone with its Pod."""
        try:
            pod = await _get(self.cid, self.key)
        except kv.StoreUnavailable:
            return None  # the database is away: the container has not stopped for that
        if pod is None:
            return True
        status = _status_of(pod, self.container)
        for state in (dict_or_empty(status.get("state")), dict_or_empty(status.get("lastState"))):
            for phase, run in state.items():
                run = dict_or_empty(run)
                if clock.parse(str(run.get("startedAt") or "")) != self.started:
                    continue
                if phase == "running":
                    return None
                return clock.parse(str(run.get("finishedAt") or "")) or True
        return True  # a later run replaced it, without a trace of its end


async def _follow(
    run: _Run, behaviour: Behaviour, req: ApiRequest, now: Callable[[], datetime]
) -> AsyncIterator[bytes]:
    """``kubectl logs -f``: what is there (after tailLines and sinceSeconds), then each line as the simulated
    container prints it, until the container stops, as the kubelet streams a log file."""
    stamped = req.flag("timestamps")
    moment = now()
    lines = _lines(behaviour, run.started, moment)
    shown = len(lines)
    limit = req.query.get("limitBytes", "")
    budget = int(limit) if limit.isdigit() else None
    chunk = _format(_select(lines, req, moment), stamped)
    while True:
        if budget is not None:
            chunk, budget = chunk[:budget], budget - len(chunk[:budget])
        if chunk:
            yield chunk
        if budget == 0:
            return
        await asyncio.sleep(FOLLOW_POLL_SECONDS)
        ended = await run.finished()
        until = ended if isinstance(ended, datetime) else now()
        lines = _lines(behaviour, run.started, until)
        chunk, shown = _format(lines[shown:], stamped), len(lines)
        if ended is not None:
            if budget is not None:
                chunk = chunk[:budget]
            if chunk:
                yield chunk
            return


def _container(pod: dict[str, Any], name: str) -> dict[str, Any]:
    specs = [c for c in dict_or_empty(pod.get("spec")).get("containers") or [] if isinstance(c, dict)]
    inits = [c for c in dict_or_empty(pod.get("spec")).get("initContainers") or [] if isinstance(c, dict)]
    pod_name = dict_or_empty(pod.get("metadata")).get("name", "")
    if not name:
        if len(specs) == 1:
            return specs[0]
        names = " ".join(str(c.get("name")) for c in specs)
        message = f"a container name must be specified for pod {pod_name}, choose one of: [{names}]"
        if inits:
            message += f" or one of the init containers: [{' '.join(str(c.get('name')) for c in inits)}]"
        raise errors.bad_request(message)
    for spec in [*specs, *inits]:
        if spec.get("name") == name:
            return spec
    raise errors.bad_request(f"container {name} is not valid for pod {pod_name}")


def _status_of(pod: dict[str, Any], name: str) -> dict[str, Any]:
    status = dict_or_empty(pod.get("status"))
    for entry in [*(status.get("initContainerStatuses") or []), *(status.get("containerStatuses") or [])]:
        if isinstance(entry, dict) and entry.get("name") == name:
            return entry
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


def _select(lines: list[tuple[datetime, str]], req: ApiRequest, now: datetime) -> list[tuple[datetime, str]]:
    """The lines ``sinceSeconds`` (before ``now``) and ``tailLines`` keep."""
    since = req.query.get("sinceSeconds")
    if since:
        try:
            cutoff = now - timedelta(seconds=int(since))
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
    return lines


def _format(lines: list[tuple[datetime, str]], stamped: bool) -> bytes:
    return "".join(
        (f"{at.strftime('%Y-%m-%dT%H:%M:%S.%f')}000Z {line}\n" if stamped else f"{line}\n") for at, line in lines
    ).encode()


def _limited(text: bytes, req: ApiRequest) -> bytes:
    limit = req.query.get("limitBytes")
    return text[: int(limit)] if limit and limit.isdigit() else text
