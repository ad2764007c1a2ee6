"""The simulated container runtime of one node: what containerd does when the kubelet calls it over the CRI.

It keeps the node's image cache, the Pod sandboxes (each with its IP from the
node's podCIDR) and their containers. Every call from the kubelet is a hop on
the bus (``kubelet/<node>`` -> ``runtime/<node>``), and the work itself takes
simulated time: a pull lasts image size / bandwidth, a start
``container_start_seconds``. The runtime outlives its kubelet: when a kubelet
is stopped its containers keep running, as they do on a real node.
"""

from __future__ import annotations

import asyncio
import ipaddress
from collections import deque
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from clusterviz.api import clock
from clusterviz.api.component import Context

from . import images

# Pulling an image whose layers are all present only resolves the manifest.
MANIFEST_CHECK_SECONDS = 0.2
# The lessons' processes exit promptly on SIGTERM.
CONTAINER_STOP_SECONDS = 0.3
# The kubelet reports at most this many images in node status (upstream's nodeStatusMaxImages).
MAX_REPORTED_IMAGES = 50
# The creation-flow step the kubelet's runtime calls belong to.
RUNTIME_STEP = 12


class EngineLock:
    """A first-come-first-served lock whose waiters wait through the engine (so they count as idle)."""

    def __init__(self, ctx: Context) -> None:
        self._engine = ctx.engine
        self._held = False
        self._waiters: deque[asyncio.Future[None]] = deque()

    async def acquire(self) -> None:
        """Take the lock, waiting for earlier holders."""
        if not self._held:
            self._held = True
            return
        future: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._waiters.append(future)
        await self._engine.wait_for(future)  # ownership is handed over by release()

    def release(self) -> None:
        """Hand the lock to the next waiter, or free it."""
        if self._waiters:
            self._engine.wake(self._waiters.popleft())
        else:
            self._held = False


@dataclass
class Image:
    """An image in the node's store."""

    repository: str
    digest: str
    size: int
    names: list[str]

    @property
    def image_id(self) -> str:
        return f"{self.repository}@{self.digest}"

    def add_name(self, name: str) -> bool:
        """Also know the image as ``name``; True if that is new."""
        if name in self.names:
            return False
        self.names.append(name)
        return True


@dataclass
class Container:
    """A container of a sandbox; ``started_at`` is on the cluster's clock, None until it runs."""

    name: str
    image: str
    image_id: str
    container_id: str
    started_at: datetime | None = None
    # When and how its process ended by itself (see script.py); None while it runs.
    finished_at: datetime | None = None
    exit_code: int | None = None
    # The runtime's word for how it ended when not by its own exit (OOMKilled); "" otherwise.
    reason: str = ""
    exit_armed: bool = False
    # How often the kubelet restarted this container before, and how the last one ended (its state.terminated).
    restart_count: int = 0
    last_state: dict[str, Any] = field(default_factory=dict)
    # The environment the kubelet resolved for it (ConfigMap and Secret references filled in).
    env: dict[str, str] = field(default_factory=dict)
    # What the kubelet's probes concluded (probes.py): its startup probe passed, its readiness probe passes.
    probed_started: bool = False
    probed_ready: bool = False
    # The Pod worker that probes it (a new one after its kubelet restarted probes it anew).
    prober: object | None = field(default=None, repr=False)
    # The timer of its scripted exit (script.py), cancelled when the kubelet kills it first.
    exit_task: asyncio.Task[None] | None = field(default=None, repr=False)


@dataclass
class Sandbox:
    """A Pod's sandbox: its network namespace (with the Pod IP) and its containers."""

    uid: str
    namespace: str
    name: str
    ip: str
    containers: dict[str, Container] = field(default_factory=dict)


@dataclass(frozen=True)
class PullResult:
    """What a pull took: the pull itself and the time including waiting for earlier pulls."""

    image: Image
    seconds: float
    waited_seconds: float
    names_changed: bool


class PodIPAM:
    """Pod IPs from the node's podCIDR, handed out round-robin like CNI's host-local plugin.

    ``.0`` is the network and ``.1`` the bridge's gateway, so Pods get ``.2`` onwards.
    """

    def __init__(self) -> None:
        self.network: ipaddress.IPv4Network | ipaddress.IPv6Network | None = None
        self.by_uid: dict[str, str] = {}
        self._last = 1

    def configure(self, cidr: str | None) -> None:
        """Use ``cidr`` (the node's spec.podCIDR) once it is known."""
        if self.network is None and cidr:
            try:
                self.network = ipaddress.ip_network(cidr, strict=False)
            except ValueError:
                self.network = None

    def allocate(self, uid: str) -> str | None:
        """The Pod's IP (the same one if it already has one); None without a CIDR or free address."""
        if uid in self.by_uid:
            return self.by_uid[uid]
        if self.network is None:
            return None
        first, last = 2, self.network.num_addresses - 2
        span = last - first + 1
        used = set(self.by_uid.values())
        for step in range(1, span + 1):
            offset = first + (self._last - first + step) % span
            ip = str(self.network[offset])
            if ip not in used:
                self._last = offset
                self.by_uid[uid] = ip
                return ip
        return None

    def reserve(self, uid: str, ip: str) -> None:
        """Record an IP a Pod already has (after a restart of the simulation)."""
        self.by_uid[uid] = ip
        if self.network is not None and ipaddress.ip_address(ip) in self.network:
            self._last = max(self._last, int(ipaddress.ip_address(ip)) - int(self.network.network_address))

    def release(self, uid: str) -> None:
        """Free the Pod's IP."""
        self.by_uid.pop(uid, None)


class ContainerRuntime:
    """containerd on one node."""

    def __init__(self, ctx: Context, node: str) -> None:
        self.ctx = ctx
        self.engine = ctx.engine
        self.node = node
        self.caller = f"kubelet/{node}"
        self.name = f"runtime/{node}"
        self.images: dict[str, Image] = {}
        self.sandboxes: dict[str, Sandbox] = {}
        self.ipam = PodIPAM()
        self._pull_lock = EngineLock(ctx)
        self._rng = ctx.rng(self.name)

    async def _call(self, verb: str, pod: dict[str, Any], summary: str, step: int | None = RUNTIME_STEP) -> None:
        meta = pod.get("metadata") or {}
        await self.engine.hop(
            self.caller, self.name, verb, "Pod", meta.get("namespace", ""), meta.get("name", ""), step, summary
        )

    # --- images ------------------------------------------------------------------------------

    def load_images(self, reported: list[dict[str, Any]]) -> None:
        """Fill the cache from a node's ``status.images`` (the images it was created with)."""
        for entry in reported:
            names = [str(n) for n in entry.get("names") or []]
            tags = [n for n in names if "@" not in n]
            if not names or self.find_image(names[0]) is not None:
                continue
            first = images.parse(names[0])
            digests = [n.split("@", 1)[1] for n in names if "@" in n]
            image = Image(
                first.repository,
                digests[0] if digests else images.digest(names[0]),
                int(entry.get("sizeBytes") or 0),
                names,
            )
            for name in tags or names:
                self.images[images.parse(name).qualified] = image

    def find_image(self, reference: str) -> Image | None:
        """The cached image ``reference`` resolves to, if any."""
        return self.images.get(images.parse(reference).qualified)

    def remember_name(self, image: Image, reference: str) -> bool:
        """Index an image under the spelling a Pod used; True if the reported names changed."""
        self.images[images.parse(reference).qualified] = image
        return image.add_name(images.normalized_name(reference))

    def image_list(self) -> list[dict[str, Any]]:
        """``status.images`` of the node: biggest first, as the kubelet reports them."""
        unique = {id(image): image for image in self.images.values()}.values()
        ordered = sorted(unique, key=lambda i: (-i.size, i.names[0]))[:MAX_REPORTED_IMAGES]
        return [{"names": list(image.names), "sizeBytes": image.size} for image in ordered]

    async def pull(self, pod: dict[str, Any], reference: str) -> PullResult:
        """Pull ``reference`` (one pull at a time per node, as the kubelet serialises pulls)."""
        requested = self.engine.now
        await self._pull_lock.acquire()
        try:
            began = self.engine.now
            cached = self.find_image(reference)
            await self._call("pull", pod, f'The kubelet asks the container runtime to pull image "{reference}"')
            if cached is not None:
                await self.engine.sleep(MANIFEST_CHECK_SECONDS, what=f"image check on {self.node} finishes")
                image = cached
            else:
                size = images.size_bytes(reference)
                await self.engine.sleep(
                    size / max(self.ctx.settings.image_pull_bandwidth, 1.0), what=f"image pull on {self.node} finishes"
                )
                ref = images.parse(reference)
                image = Image(ref.repository, images.digest(reference), size, [])
                image.add_name(image.image_id)
            changed = self.remember_name(image, reference)
            return PullResult(image, self.engine.now - began, self.engine.now - requested, changed)
        finally:
            self._pull_lock.release()

    # --- sandboxes and containers ------------------------------------------------------------

    async def run_sandbox(self, pod: dict[str, Any]) -> Sandbox | None:
        """Create the Pod's sandbox with a fresh IP; None when no IP can be given."""
        meta = pod.get("metadata") or {}
        uid = str(meta.get("uid", ""))
        if uid in self.sandboxes:
            return self.sandboxes[uid]
        ip = self.ipam.allocate(uid)
        if ip is None:
            return None
        await self._call(
            "create",
            pod,
            f"The kubelet asks the container runtime to create the Pod sandbox (network namespace with IP {ip})",
        )
        return self.sandboxes.setdefault(uid, Sandbox(uid, meta.get("namespace", ""), meta.get("name", ""), ip))

    def adopt(self, sandbox: Sandbox) -> None:
        """Know a sandbox that was running before this simulation process started."""
        self.sandboxes.setdefault(sandbox.uid, sandbox)
        self.ipam.reserve(sandbox.uid, sandbox.ip)

    def new_container_id(self) -> str:
        """``containerd://`` and 64 hex digits, from the node's seeded random source."""
        return f"containerd://{self._rng.getrandbits(256):064x}"

    async def create_container(
        self, pod: dict[str, Any], sandbox: Sandbox, name: str, image: Image, reference: str
    ) -> Container:
        """Create (not yet start) a container in the sandbox."""
        if name in sandbox.containers:
            return sandbox.containers[name]
        await self._call(
            "create",
            pod,
            f'The kubelet asks the container runtime to create container "{name}" from image "{reference}"',
        )
        container = Container(name, images.parse(reference).qualified, image.image_id, self.new_container_id())
        return sandbox.containers.setdefault(name, container)

    async def start_container(self, pod: dict[str, Any], container: Container) -> None:
        """Start a created container; it runs once ``container_start_seconds`` have passed."""
        if container.started_at is not None:
            return
        await self._call("start", pod, f'The kubelet asks the container runtime to start container "{container.name}"')
        await self.engine.sleep(
            self.ctx.settings.container_start_seconds, what=f'container "{container.name}" on {self.node} starts'
        )
        if container.started_at is None:
            container.started_at = clock.now_precise()

    async def container_exited(self, pod: dict[str, Any], container: Container, code: int, reason: str = "") -> None:
        """The container's process ended with ``code`` (``reason``: OOMKilled when the kernel killed it): the runtime
        tells the kubelet (its container event)."""
        meta = pod.get("metadata") or {}
        await self.engine.hop(
            self.name,
            self.caller,
            "exit",
            "Pod",
            meta.get("namespace", ""),
            meta.get("name", ""),
            None,
            f'The container runtime tells the kubelet that container "{container.name}" exited with code {code}'
            + (f" ({reason})" if reason else ""),
        )
        container.finished_at = clock.now_precise()
        container.exit_code = code
        container.reason = reason

    async def stop_container(self, pod: dict[str, Any], sandbox: Sandbox, container: Container) -> None:
        """Stop a container (SIGTERM, and it exits) and remove it."""
        await self._call(
            "stop", pod, f'The kubelet asks the container runtime to stop container "{container.name}"', step=None
        )
        if container.exit_task is not None:
            container.exit_task.cancel()  # its process is stopped: the exit its script planned never comes
        await self.engine.sleep(CONTAINER_STOP_SECONDS, what=f'container "{container.name}" on {self.node} stops')
        sandbox.containers.pop(container.name, None)

    async def remove_sandbox(self, pod: dict[str, Any], sandbox: Sandbox) -> None:
        """Tear the sandbox down and give its IP back."""
        await self._call(
            "stop",
            pod,
            f"The kubelet asks the container runtime to remove the Pod sandbox (IP {sandbox.ip} is freed)",
            step=None,
        )
        self.sandboxes.pop(sandbox.uid, None)
        self.ipam.release(sandbox.uid)
