"""One Pod's life on a node: admit, pull, create, start, report; or kill and let go.

Like upstream's pod workers, each Pod bound to the node gets its own worker,
so Pods start side by side (their image pulls still queue one at a time).
A worker reconciles from the latest copy of its Pod whenever it is told the
Pod changed, and every step re-checks that its kubelet still runs and the Pod
is not being deleted, so a stop or a delete takes effect at the next step.
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from clusterviz.api import clock, errors
from clusterviz.apimachinery.unstructured import resource_version

from . import claims, images, init_containers
from .admission import admit
from .config_refs import ConfigRefError, Resolver
from .prober import arm_probes
from .probes import KILLED_EXIT_CODE, Step, has_probes
from .runtime import Container, Image, Sandbox
from .script import RestartBackOff, arm_exits, pod_phase, restarts, terminated_state
from .status import CRASH_LOOP, go_duration, internal_ip, is_running_and_ready, pod_status, rejected_status

if TYPE_CHECKING:
    from .kubelet import Kubelet

TERMINAL_PHASES = ("Failed", "Succeeded")
# A sync that failed is tried again after this long (the kubelet's pod worker back-off period).
RETRY_SECONDS = 10.0
CREATE_CONFIG_ERROR = "CreateContainerConfigError"


class PodWorker:
    """Drives one Pod (by UID) on one kubelet."""

    def __init__(self, kubelet: Kubelet, pod: dict[str, Any]) -> None:
        self.kubelet = kubelet
        self.engine = kubelet.engine
        self.runtime = kubelet.runtime
        self.pod = pod
        meta = pod.get("metadata") or {}
        self.uid = str(meta.get("uid", ""))
        self.namespace = str(meta.get("namespace", ""))
        self.name = str(meta.get("name", ""))
        self.deleted = False
        self.admitted = self.uid in self.runtime.sandboxes  # already running here before this kubelet started
        self._dirty = True
        self._waiter: asyncio.Future[None] | None = None
        self._announced = False
        self._posted_rv = 0
        self._never_pull_reported: set[str] = set()
        # Its containers have all exited for good (see script.py): the Pod is done here.
        self.finished = False
        # Containers whose ConfigMap or Secret references do not resolve: (reason, message) each.
        self._config_waiting: dict[str, tuple[str, str]] = {}
        # Problems already reported; a retry that meets the same one again stays quiet.
        self._config_reported: set[str] = set()
        self._retry = False
        self._ensured: dict[str, Image] = {}
        # Restarts: each container's back-off, the ones waiting it out, and what a replacement inherits.
        self._backoff = RestartBackOff()
        self._crash_waiting: dict[str, tuple[str, str]] = {}
        self._history: dict[str, tuple[int, dict[str, Any]]] = {}
        self._wake_due: float | None = None

    def _path(self, name: str) -> str:
        return init_containers.field_path(self.pod, name)

    # --- being told ----------------------------------------------------------------------------

    def update(self, pod: dict[str, Any]) -> None:
        """A newer copy of the Pod arrived."""
        self.pod = pod
        self.signal()

    def gone(self, pod: dict[str, Any]) -> None:
        """The Pod was deleted from the API."""
        self.pod = pod
        self.deleted = True
        self.signal()

    def signal(self) -> None:
        """Have the worker look again."""
        self._dirty = True
        if self._waiter is not None and not self._waiter.done():
            self.engine.wake(self._waiter)

    async def run(self) -> None:
        """Reconcile whenever told, until the Pod is finished here or the kubelet stops."""
        try:
            while self.kubelet.alive:
                if not self._dirty:
                    self._waiter = asyncio.get_running_loop().create_future()
                    timeout = RETRY_SECONDS if self._retry else None
                    what = f"kubelet retries Pod {self.namespace}/{self.name}"
                    await self.engine.wait_for(self._waiter, timeout, background=True, what=what)
                    self._dirty = self._dirty or self._retry
                    self._retry = False
                    continue
                self._dirty = False
                if await self._sync():
                    return
        finally:
            if self.kubelet.workers.get(self.uid) is self:
                del self.kubelet.workers[self.uid]

    # --- reconciling ---------------------------------------------------------------------------

    def _stale(self) -> bool:
        """Stop the current sync: the kubelet stopped, or the Pod is going away."""
        meta = self.pod.get("metadata") or {}
        return not self.kubelet.alive or self.deleted or bool(meta.get("deletionTimestamp"))

    async def _sync(self) -> bool:
        """One reconcile pass; True when the worker is done for good."""
        if self.finished:
            return True
        if self.deleted or (self.pod.get("metadata") or {}).get("deletionTimestamp"):
            await self._terminate()
            return True
        if not self.admitted:
            if (self.pod.get("status") or {}).get("phase") in TERMINAL_PHASES:
                return True
            node = self.kubelet.node()
            if node is None:
                return False
            verdict = admit(self.pod, node, self.kubelet.admitted_pods())
            if not verdict.admitted:
                await self.kubelet.recorder.event(self.pod, "Warning", verdict.reason, verdict.message)
                await self._post(rejected_status(self.pod, verdict.reason, verdict.message))
                return True
            self.admitted = True
        await self._run_pod()
        return False

    async def _post(self, status: dict[str, Any]) -> bool:
        """Write the Pod's status (hops 12-13); False if the Pod is gone."""
        try:
            updated = await self.kubelet.client.patch(
                "pods", self.name, {"status": status}, self.namespace, patch_type="merge", sub="status"
            )
        except errors.StatusError as exc:
            if exc.code in (404, 409):
                return False
            raise
        self._posted_rv = resource_version(updated)
        return True

    def _status(self, sandbox: Sandbox | None, waiting: dict[str, tuple[str, str]] | None = None) -> dict[str, Any]:
        node = self.kubelet.node() or {}
        reasons = {**self._config_waiting, **self._crash_waiting, **(waiting or {})}
        return pod_status(self.pod, internal_ip(node), sandbox, reasons)

    async def _restart_exited(self, sandbox: Sandbox) -> None:
        """Containers the restartPolicy restarts: replaced now, or once their back-off has passed."""
        for name, container in list(sandbox.containers.items()):
            if container.finished_at is None or not restarts(self.pod, container.exit_code or 0, name):
                continue
            now = clock.now_precise()
            wait = self._backoff.remaining(name, container.finished_at, now)
            if wait > 0:
                message = (
                    f"back-off {go_duration(self._backoff.current(name))} restarting failed "
                    f"container={name} pod={self.name}_{self.namespace}({self.uid})"
                )
                if self._crash_waiting.get(name) != (CRASH_LOOP, message):
                    self._crash_waiting[name] = (CRASH_LOOP, message)
                    await self.kubelet.recorder.event(
                        self.pod, "Warning", "BackOff",
                        f"Back-off restarting failed container {name} in pod {self.name}_{self.namespace}({self.uid})",
                        self._path(name),
                    )
                self._wake_after(wait)
                continue
            self._backoff.next(name, container.finished_at)
            self._crash_waiting.pop(name, None)
            self._history[name] = (container.restart_count + 1, {"terminated": terminated_state(container)})
            del sandbox.containers[name]  # the next pass creates and starts its replacement

    def _wake_after(self, seconds: float) -> None:
        """Look again once a back-off has passed (in the background: a crash loop must not keep fast-forward busy)."""
        due = self.engine.now + seconds
        if self._wake_due is not None and self._wake_due <= due and self._wake_due > self.engine.now:
            return
        self._wake_due = due

        async def later() -> None:
            await self.engine.sleep(seconds, background=True, what=f"back-off of Pod {self.namespace}/{self.name} ends")
            if self._wake_due == due:
                self._wake_due = None
                self.signal()

        self.engine.spawn(f"kubelet/{self.kubelet.node_name}/backoff/{self.name}", later)

    async def _report_once(self, problem: str, reason: str, message: str, field_path: str = "") -> bool:
        """Record a Warning the first time ``problem`` is met; True if it was news."""
        if problem in self._config_reported:
            return False
        self._config_reported.add(problem)
        await self.kubelet.recorder.event(self.pod, "Warning", reason, message, field_path)
        return True

    async def _volumes_ready(self) -> bool:
        """Whether every claim is Bound and every ConfigMap and Secret the Pod's volumes need is there
        (else FailedMount, retried)."""
        message = await claims.mount_error(self._fetch, self.pod)
        if message is None:
            failed = await Resolver(self._fetch, self.pod).volume_error()
            if failed is None:
                return True
            volume, why = failed
            message = f'MountVolume.SetUp failed for volume "{volume}" : {why}'
        await self._report_once(message, "FailedMount", message)
        self._retry = True
        return False

    async def _container_env(self, spec: dict[str, Any]) -> dict[str, str] | None:
        """The container's resolved environment; None (reported, retried) when a reference is missing."""
        name = str(spec.get("name", ""))
        try:
            env = await Resolver(self._fetch, self.pod).container_env(spec)
        except ConfigRefError as exc:
            self._config_waiting[name] = (CREATE_CONFIG_ERROR, str(exc))
            self._retry = True
            if await self._report_once(f"{name}: {exc}", "Failed", f"Error: {exc}", self._path(name)):
                await self._post(self._status(self.runtime.sandboxes.get(self.uid)))
            return None
        self._config_waiting.pop(name, None)
        return env

    async def _fetch(self, plural: str, namespace: str, name: str) -> dict[str, Any] | None:
        return await self.kubelet.client.get_or_none(plural, name, namespace)

    async def _run_pod(self) -> None:
        """Bring the Pod to Running, step by step, then keep its reported status true."""
        sandbox = self.runtime.sandboxes.get(self.uid)
        specs = (self.pod.get("spec") or {}).get("containers") or []
        if sandbox is not None:
            await self._restart_exited(sandbox)
            if self._stale():
                return
        running = sandbox is not None and all(
            (c := sandbox.containers.get(s.get("name", ""))) is not None and c.started_at is not None for s in specs
        )
        if sandbox is not None and running:
            self._arm(sandbox)
        if sandbox is None or not running:
            if not self._announced:
                self._announced = True
                if not await self._post(self._status(sandbox)) or self._stale():
                    return
            sandbox = await self._start(sandbox, specs)
            if sandbox is None:
                return
            self._arm(sandbox)
            initialising = any(s.get("name", "") not in sandbox.containers for s in specs)
            if initialising and pod_phase(self.pod, sandbox) is None and not self._status_changed(sandbox):
                return  # an init container runs on: nothing new to tell
        elif self._posted_rv > resource_version(self.pod) or is_running_and_ready(self.pod, sandbox):
            return  # our last write is not back from the watch yet, or the stored status is already true
        elif has_probes(self.pod) and not self._status_changed(sandbox):
            return  # a probed Pod that stays unready writes nothing new
        if self._config_waiting and not self._status_changed(sandbox):
            return  # a retry that changed nothing writes nothing
        posted = self._status(sandbox)
        await self._post(posted)
        if pod_phase(self.pod, sandbox) is not None:
            final = self._status(sandbox)
            if final != posted:
                # A container exited while the status was on its way: the final one must be told.
                await self._post(final)
            await self._finish(sandbox)

    def _arm(self, sandbox: Sandbox) -> None:
        """Follow the started containers: their exits, and their probes."""
        arm_exits(self.engine, self.runtime, self.pod, sandbox, self.signal)
        arm_probes(self.engine, self.runtime, sandbox, self, f"kubelet/{self.kubelet.node_name}/{self.name}")

    def probing(self) -> bool:
        """Whether this worker still probes its Pod's containers (see prober.py)."""
        return self.kubelet.alive and self.kubelet.workers.get(self.uid) is self and not self._stale()

    async def probed(self, container: Container, step: Step) -> None:
        """What a container's probes found: Unhealthy events, then a restart or a readiness to report."""
        if not self.probing():
            return
        path = self._path(container.name)
        for kind, output in step.failures:
            await self.kubelet.recorder.event(self.pod, "Warning", "Unhealthy", f"{kind} probe failed: {output}", path)
        if step.kill and container.finished_at is None:
            await self.kubelet.recorder.event(
                self.pod, "Normal", "Killing",
                f"Container {container.name} failed {step.kill.lower()} probe, will be restarted", path,
            )
            if container.exit_task is not None:
                container.exit_task.cancel()  # killed: its own exit will not come
            await self.runtime.container_exited(self.pod, container, KILLED_EXIT_CODE)
        if step.kill or step.changed:
            self.signal()

    def _status_changed(self, sandbox: Sandbox) -> bool:
        stored = self.pod.get("status") or {}
        return any(stored.get(k) != v for k, v in self._status(sandbox).items())

    async def _finish(self, sandbox: Sandbox) -> None:
        """Every container is down for good: the sandbox goes and the Pod's resources are free (it stays listed)."""
        await self.runtime.remove_sandbox(self.pod, sandbox)
        self.admitted = False
        self.finished = True

    async def _start(self, sandbox: Sandbox | None, specs: list[dict[str, Any]]) -> Sandbox | None:
        """Sandbox, then the init containers in order (init_containers.py), then each app container: image, create,
        start. None if interrupted."""
        recorder = self.kubelet.recorder
        if sandbox is None:
            if not await self._volumes_ready() or self._stale():
                return None
            node = self.kubelet.node() or {}
            self.runtime.ipam.configure((node.get("spec") or {}).get("podCIDR"))
            sandbox = await self.runtime.run_sandbox(self.pod)
            if sandbox is None:
                await recorder.event(
                    self.pod,
                    "Warning",
                    "FailedCreatePodSandBox",
                    "Failed to create pod sandbox: no IP address available in the node's podCIDR",
                )
                return None
            if self._stale():
                return None
        step = init_containers.progress(self.pod, sandbox)
        while step.start is not None:
            started = await self._start_container(sandbox, step.start)
            if started is None:
                return None
            if not started or not init_containers.is_sidecar(step.start):
                return sandbox  # a regular init container runs alone: its exit moves the Pod on
            step = init_containers.progress(self.pod, sandbox)
        if not step.done:
            return sandbox
        for spec in specs:
            if await self._start_container(sandbox, spec) is None:
                return None
        return sandbox

    async def _start_container(self, sandbox: Sandbox, spec: dict[str, Any]) -> bool | None:
        """Image, create, start one container: True once it runs, False while its configuration is missing,
        None if interrupted."""
        recorder = self.kubelet.recorder
        name = str(spec.get("name", ""))
        container = sandbox.containers.get(name)
        if container is None:
            # A retry after a configuration error reuses the image it already has, without a new event.
            image = self._ensured.pop(name, None) or await self._ensure_image(spec, sandbox)
            if image is None or self._stale():
                return None
            env = await self._container_env(spec)
            if self._stale():
                return None
            if env is None:
                self._ensured[name] = image
                return False  # upstream goes on with the Pod's other containers
            container = await self.runtime.create_container(self.pod, sandbox, name, image, spec.get("image", ""))
            container.env = env
            if name in self._history:
                container.restart_count, container.last_state = self._history.pop(name)
            if self._stale():
                return None
            await recorder.event(self.pod, "Normal", "Created", f"Created container: {name}", self._path(name))
        if container.started_at is None:
            await self.runtime.start_container(self.pod, container)
            if self._stale():
                return None
            await recorder.event(self.pod, "Normal", "Started", f"Started container {name}", self._path(name))
        return True

    async def _ensure_image(self, spec: dict[str, Any], sandbox: Sandbox) -> Image | None:
        """The container's image, pulled if the pull policy says so (upstream's EnsureImageExists)."""
        recorder = self.kubelet.recorder
        name, reference = str(spec.get("name", "")), str(spec.get("image", ""))
        policy = images.pull_policy(spec)
        cached = self.runtime.find_image(reference)
        if cached is None and policy == "Never":
            message = f'Container image "{reference}" is not present with pull policy of Never'
            if name not in self._never_pull_reported:
                self._never_pull_reported.add(name)
                await recorder.event(self.pod, "Warning", "ErrImageNeverPull", message, self._path(name))
                await self._post(self._status(sandbox, {name: ("ErrImageNeverPull", message)}))
            return None
        if cached is not None and policy != "Always":
            await recorder.event(
                self.pod,
                "Normal",
                "Pulled",
                f'Container image "{reference}" already present on machine',
                self._path(name),
            )
            if self.runtime.remember_name(cached, reference):
                await self.kubelet.report_images()
            return cached
        await recorder.event(self.pod, "Normal", "Pulling", f'Pulling image "{reference}"', self._path(name))
        result = await self.runtime.pull(self.pod, reference)
        if self._stale():
            return None
        await recorder.event(
            self.pod,
            "Normal",
            "Pulled",
            f'Successfully pulled image "{reference}" in {go_duration(result.seconds)} '
            f"({go_duration(result.waited_seconds)} including waiting). Image size: {result.image.size} bytes.",
            self._path(name),
        )
        if result.names_changed:
            await self.kubelet.report_images()
        return result.image

    async def _terminate(self) -> None:
        """Kill the Pod's containers, tear its sandbox down, and (if it still exists) delete it for good."""
        sandbox = self.runtime.sandboxes.get(self.uid)
        if sandbox is not None:
            for container in list(sandbox.containers.values()):
                if container.finished_at is not None:
                    continue  # it exited by itself: nothing to stop
                await self.kubelet.recorder.event(
                    self.pod, "Normal", "Killing", f"Stopping container {container.name}", self._path(container.name)
                )
                await self.runtime.stop_container(self.pod, sandbox, container)
                if not self.kubelet.alive:
                    return
            await self.runtime.remove_sandbox(self.pod, sandbox)
        self.admitted = False  # its resources are free again
        if self.deleted or not self.kubelet.alive:
            return
        try:
            await self.kubelet.client.delete(
                "pods", self.name, self.namespace, {"gracePeriodSeconds": 0, "preconditions": {"uid": self.uid}}
            )
        except errors.StatusError as exc:
            if exc.code not in (404, 409):
                raise
