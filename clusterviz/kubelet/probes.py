"""What the kubelet's liveness, readiness and startup probes find, and what their results lead to.

No process really answers, so a probe is judged from what the container does (``behaviour.py``):

- ``httpGet`` succeeds when something listens on the port and the path exists. Well-known servers
  listen on their own port (nginx and httpd 80, redis 6379, mysql 3306, ...) and on the
  containerPorts the spec declares; an image that is neither a server nor a shell runs a service on
  its containerPorts. On an HTTP server ``/``, ``/index.html`` and the usual health paths
  (``/healthz``, ``/livez``, ``/readyz``, ``/health``, ``/ready``, ``/status``) answer 200, any other
  path 404; a server that does not speak HTTP (redis, mysql, ...) closes the connection. Shell
  scripts listen on nothing.
- ``tcpSocket`` (and ``grpc``) succeeds when something listens on the port.
- ``exec`` runs its command through the same small shell: ``cat``, ``ls``, ``test -e``/``-f`` of a file
  succeed when the file exists. The container's own script creates files (``touch``, ``echo ... >``) and
  removes them (``rm``) at the simulated time it reaches them; files under ``/tmp`` the script never
  made are missing, any other path belongs to the image and exists. ``false`` and ``exit N`` fail,
  other commands succeed.
- Pod annotations let a lesson make probes fail: ``clusterviz.io/probe-fail: "liveness,readiness"``
  fails those probes from the start, ``clusterviz.io/unhealthy-after: "30s"`` fails every probe once
  the container has run that long (an HTTP probe then answers 500).

The results follow upstream's probe workers: the first probe runs ``initialDelaySeconds`` after the
container started, then one every ``periodSeconds``; a result only flips after ``successThreshold``
successes or ``failureThreshold`` failures in a row. Liveness starts out Success, readiness Failure,
and while a startup probe has not succeeded the other two wait. A liveness or startup failure
restarts the container; a readiness failure makes it unready. Every failed probe is an ``Unhealthy``
Warning, except that a probe which keeps failing past its failureThreshold repeats it at most every
five minutes (upstream: every period), so an unready Pod lets fast-forward settle.
"""

from __future__ import annotations

import copy
import dataclasses
import functools
import shlex
from dataclasses import dataclass, field
from typing import Any, Final

from clusterviz.apimachinery.duration import parse_go_duration

from . import images
from .behaviour import SHELL_IMAGES, SHELLS, behaviour_of, script_of, statements
from .runtime import Container

PROBE_FAIL_ANNOTATION: Final = "clusterviz.io/probe-fail"
UNHEALTHY_AFTER_ANNOTATION: Final = "clusterviz.io/unhealthy-after"
LIVENESS, READINESS, STARTUP = "Liveness", "Readiness", "Startup"
# The spec field of each kind, in the order the kubelet runs them at the same moment.
FIELDS: Final = {STARTUP: "startupProbe", LIVENESS: "livenessProbe", READINESS: "readinessProbe"}
# Upstream's defaults (SetDefaults_Probe), for a Pod stored before defaulting filled them in.
DEFAULT_PERIOD, DEFAULT_TIMEOUT, DEFAULT_SUCCESS, DEFAULT_FAILURE = 10, 1, 1, 3
# A process killed for a failed probe: SIGKILL after the shell ignored SIGTERM.
KILLED_EXIT_CODE: Final = 137
# How often a probe that keeps failing after its result flipped repeats its Unhealthy event.
REPEAT_EVENT_SECONDS: Final = 300.0
# How far ahead a coming change keeps fast-forward running (see ``ContainerProbes.change_within``):
# ten minutes, or 120 rounds of the fastest probe (always more than the engine's settle window).
LOOKAHEAD_SECONDS: Final = 600.0
LOOKAHEAD_ROUNDS: Final = 120

SERVER_PORTS: Final = {
    "nginx": 80,
    "httpd": 80,
    "redis": 6379,
    "mysql": 3306,
    "postgres": 5432,
    "mongo": 27017,
    "memcached": 11211,
}
HTTP_SERVERS: Final = frozenset({"nginx", "httpd"})
KNOWN_PATHS: Final = frozenset({"/", "/index.html", "/healthz", "/livez", "/readyz", "/health", "/ready", "/status"})
_FILE_CHECKS: Final = frozenset({"cat", "ls", "test", "[", "stat", "head"})


@dataclass(frozen=True)
class Timing:
    """A probe's schedule and thresholds, with upstream's defaults for what is not set."""

    initial_delay: float = 0.0
    period: float = DEFAULT_PERIOD
    timeout: float = DEFAULT_TIMEOUT
    success: int = DEFAULT_SUCCESS
    failure: int = DEFAULT_FAILURE

    @classmethod
    def of(cls, probe: dict[str, Any]) -> Timing:
        """The timing a probe spec asks for (zero or missing values take the defaults)."""

        def number(key: str, default: int) -> int:
            value = probe.get(key)
            return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else default

        return cls(
            float(number("initialDelaySeconds", 0)),
            float(number("periodSeconds", DEFAULT_PERIOD)),
            float(number("timeoutSeconds", DEFAULT_TIMEOUT)),
            number("successThreshold", DEFAULT_SUCCESS),
            number("failureThreshold", DEFAULT_FAILURE),
        )


@dataclass(frozen=True)
class Result:
    """One probe's answer; ``output`` is what upstream's prober reports after "<Kind> probe failed: "."""

    ok: bool
    output: str = ""


class Judge:
    """Answers the probes of one container of a Pod at a given time since the container started."""

    def __init__(self, pod: dict[str, Any], spec: dict[str, Any], pod_ip: str) -> None:
        self.spec = spec
        self.pod_ip = pod_ip
        self.failing: set[str] = set()
        self.unhealthy_after: float | None = None
        self.annotate(pod)
        self.busybox = images.parse(str(spec.get("image") or "")).repository.rsplit("/", 1)[-1] in SHELL_IMAGES
        behaviour = behaviour_of(pod, spec)
        script = script_of(spec)
        self.files = _file_events(script) if script is not None else []
        declared = {p.get("containerPort") for p in spec.get("ports") or [] if isinstance(p, dict)}
        if behaviour.server:
            self.listening = (
                {SERVER_PORTS[behaviour.server], *declared} if behaviour.server in SERVER_PORTS else declared
            )
            self.http = behaviour.server in HTTP_SERVERS
        else:
            service = script is None and behaviour.exit_after is None
            self.listening = declared if service else set()
            self.http = service

    def annotate(self, pod: dict[str, Any]) -> None:
        """Take the Pod's current probe annotations (a lesson may set them while the container runs)."""
        annotations = (pod.get("metadata") or {}).get("annotations") or {}
        self.failing = {k.strip().capitalize() for k in str(annotations.get(PROBE_FAIL_ANNOTATION, "")).split(",")}
        try:
            self.unhealthy_after = max(parse_go_duration(str(annotations[UNHEALTHY_AFTER_ANNOTATION])), 0.0)
        except (KeyError, ValueError):
            self.unhealthy_after = None

    def __call__(self, kind: str, probe: dict[str, Any], elapsed: float) -> Result:
        """The result of the ``kind`` probe ``probe`` run ``elapsed`` seconds after the container started."""
        forced = kind in self.failing or (self.unhealthy_after is not None and elapsed >= self.unhealthy_after)
        if isinstance(probe.get("exec"), dict):
            return (
                Result(False) if forced else self._exec([str(a) for a in probe["exec"].get("command") or []], elapsed)
            )
        if isinstance(probe.get("httpGet"), dict):
            return self._http(probe["httpGet"], forced)
        handler = probe.get("tcpSocket") if isinstance(probe.get("tcpSocket"), dict) else probe.get("grpc")
        if isinstance(handler, dict):
            host = str(handler.get("host") or self.pod_ip)
            port = self._port(handler.get("port"))
            if not forced and port in self.listening:
                return Result(True)
            return Result(False, f"dial tcp {host}:{port}: connect: connection refused")
        return Result(True)

    def _port(self, port: Any) -> Any:
        if isinstance(port, str) and not port.isdigit():
            named = [p.get("containerPort") for p in self.spec.get("ports") or [] if p.get("name") == port]
            return named[0] if named else port
        return int(port) if isinstance(port, str) else port

    def _http(self, get: dict[str, Any], forced: bool) -> Result:
        host = str(get.get("host") or self.pod_ip)
        port = self._port(get.get("port"))
        path = str(get.get("path") or "/")
        url = f"{str(get.get('scheme') or 'HTTP').lower()}://{host}:{port}{path}"
        if port not in self.listening:
            return Result(False, f'Get "{url}": dial tcp {host}:{port}: connect: connection refused')
        if not self.http:
            return Result(False, f'Get "{url}": EOF')
        if forced:
            return Result(False, "HTTP probe failed with statuscode: 500")
        if path.split("?", 1)[0] not in KNOWN_PATHS:
            return Result(False, "HTTP probe failed with statuscode: 404")
        return Result(True)

    def _exists(self, path: str, elapsed: float) -> bool:
        present = not path.startswith("/tmp/")
        for at, name, created in self.files:
            if name == path and at <= elapsed:
                present = created
        return present

    def _exec(self, argv: list[str], elapsed: float) -> Result:
        if len(argv) >= 3 and argv[0] in SHELLS and argv[1] == "-c":
            script = argv[2]
        else:
            script = shlex.join(argv)
        result = Result(True)
        for separator, statement, words in _parsed(script):
            if separator == "&&" and not result.ok or separator == "||" and result.ok:
                continue
            if words is None:
                return Result(False, f"sh: syntax error: {statement}")
            if words:
                result = self._command(list(words), elapsed)
                if words[0] == "exit":
                    break
        return result

    def _command(self, words: list[str], elapsed: float) -> Result:
        verb, rest = words[0].rsplit("/", 1)[-1], [w for w in words[1:] if not w.startswith("-") and w != "]"]
        if verb == "false":
            return Result(False)
        if verb == "exit":
            return Result(not rest or rest[0] == "0")
        if verb not in _FILE_CHECKS:
            return Result(True)
        missing = next((p for p in rest if not self._exists(p, elapsed)), None)
        if missing is None:
            return Result(True)
        if verb in ("test", "["):
            return Result(False)
        if verb == "cat":
            return Result(
                False,
                f"cat: can't open '{missing}': No such file or directory"
                if self.busybox
                else f"cat: {missing}: No such file or directory",
            )
        if verb == "ls" and not self.busybox:
            return Result(False, f"ls: cannot access '{missing}': No such file or directory")
        return Result(False, f"{verb}: {missing}: No such file or directory")


@functools.lru_cache(maxsize=256)
def _parsed(script: str) -> tuple[tuple[str, str, tuple[str, ...] | None], ...]:
    """(separator, statement, its words or None if it does not parse) for each command; probes run often."""
    out: list[tuple[str, str, tuple[str, ...] | None]] = []
    for separator, statement in statements(script):
        try:
            out.append((separator, statement, tuple(shlex.split(statement))))
        except ValueError:
            out.append((separator, statement, None))
    return tuple(out)


def _file_events(script: str) -> list[tuple[float, str, bool]]:
    """(seconds after the start, path, created?) for each file the container's script makes or removes."""
    at, ok, out = 0.0, True, []
    for separator, statement in statements(script):
        if separator == "&&" and not ok or separator == "||" and ok:
            continue
        try:
            words = shlex.split(statement)
        except ValueError:
            break
        if not words:
            continue
        verb, rest = words[0].rsplit("/", 1)[-1], [w for w in words[1:] if not w.startswith("-")]
        ok = verb != "false"
        for redirect in (">", ">>"):
            if redirect in words[:-1]:
                out.append((at, words[words.index(redirect) + 1], True))
        if verb == "sleep":
            if rest and rest[0] == "infinity":
                break
            try:
                at += float(rest[0]) if rest else 0.0
            except ValueError:
                ok = False
        elif verb in ("touch", "rm"):
            out.extend((at, path, verb == "touch") for path in rest)
        elif verb == "exit":
            break
    return out


@dataclass
class ProbeWorker:
    """One probe of one container: its schedule, the results in a row and the result that holds."""

    kind: str
    probe: dict[str, Any]
    timing: Timing
    # Upstream's initial results: liveness Success, readiness Failure, startup Unknown (None).
    result: bool | None
    last: bool | None = None
    in_a_row: int = 0
    ticks: int = 0
    last_event: float | None = None

    def due(self) -> float:
        """Seconds after the container started when this probe runs next."""
        return self.timing.initial_delay + self.ticks * self.timing.period

    def record(self, ok: bool) -> bool:
        """Count one result; True when the result that holds flips (a threshold was reached)."""
        self.in_a_row = self.in_a_row + 1 if self.last == ok else 1
        self.last = ok
        threshold = self.timing.success if ok else self.timing.failure
        if self.in_a_row < threshold or self.result == ok:
            return False
        self.result = ok
        return True


@dataclass
class Step:
    """What the probes due at one moment found: failures to report, whether started/ready changed, a kill."""

    at: float
    failures: list[tuple[str, str]] = field(default_factory=list)
    changed: bool = False
    kill: str = ""


class ContainerProbes:
    """The probes of one container, run on its own clock (seconds since it started)."""

    def __init__(self, spec: dict[str, Any]) -> None:
        initial = {LIVENESS: True, READINESS: False, STARTUP: None}
        self.workers = [
            ProbeWorker(kind, spec[key], Timing.of(spec[key]), initial[kind])
            for kind, key in FIELDS.items()
            if isinstance(spec.get(key), dict)
        ]
        self.started = not any(w.kind == STARTUP for w in self.workers)
        self.ready = self.started and not any(w.kind == READINESS for w in self.workers)
        self.stopped = False

    def next_due(self) -> float | None:
        """When the next probe runs (seconds since the start), None when no probe runs any more."""
        live = [w.due() for w in self.workers if not (w.kind == STARTUP and self.started)]
        return None if self.stopped or not live else min(live)

    def step(self, judge: Judge) -> Step:
        """Run the probes due next and apply what they found."""
        at = self.next_due()
        if at is None:
            return Step(0.0)
        step = Step(at)
        for worker in self.workers:
            if worker.due() != at:
                continue
            worker.ticks += 1
            if worker.kind != STARTUP and not self.started:
                continue  # held back until the startup probe succeeds
            result = judge(worker.kind, worker.probe, at)
            flipped = worker.record(result.ok)
            # The failures up to the threshold are all told; after that a steady failure now and then.
            leading = worker.in_a_row <= worker.timing.failure
            if not result.ok and (leading or at - (worker.last_event or 0.0) >= REPEAT_EVENT_SECONDS):
                worker.last_event = at
                step.failures.append((worker.kind, result.output))
            if not flipped:
                continue
            if worker.kind == STARTUP and worker.result:
                self.started = True
                self.ready = not any(w.kind == READINESS for w in self.workers)
                step.changed = True
            elif worker.kind == READINESS:
                self.ready = bool(worker.result)
                step.changed = True
            elif worker.result is False:
                step.kill = worker.kind
                self.stopped = True
                break
        return step

    def change_within(self, judge: Judge, seconds: float = LOOKAHEAD_SECONDS) -> bool:
        """Whether a result flips (or a restart is due) soon: within ``seconds`` of the next probe, and
        within LOOKAHEAD_ROUNDS rounds of the fastest probe (so fast probes stay cheap to look ahead)."""
        if self.workers:
            seconds = min(seconds, LOOKAHEAD_ROUNDS * min(w.timing.period for w in self.workers))
        ahead = copy.copy(self)
        ahead.workers = [dataclasses.replace(w) for w in self.workers]  # the probe specs are only read
        first = ahead.next_due()
        while first is not None and (due := ahead.next_due()) is not None and due <= first + seconds:
            step = ahead.step(judge)
            if step.changed or step.kill:
                return True
        return False


def has_probes(pod: dict[str, Any]) -> bool:
    """Whether any container of the Pod has a probe."""
    return any(
        isinstance(c, dict) and any(isinstance(c.get(key), dict) for key in FIELDS.values())
        for c in (pod.get("spec") or {}).get("containers") or []
    )


def started(spec: dict[str, Any], container: Container) -> bool:
    """containerStatuses[].started of a running container: its startup probe (if any) has succeeded."""
    return container.probed_started if isinstance(spec.get("startupProbe"), dict) else True


def ready(spec: dict[str, Any], container: Container) -> bool:
    """containerStatuses[].ready of a running container: started, and its readiness probe (if any) says so."""
    return started(spec, container) and (
        container.probed_ready if isinstance(spec.get("readinessProbe"), dict) else True
    )
