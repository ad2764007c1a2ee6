"""What a simulated container's process does: how long it runs, how it ends, what it prints.

No process really runs, so the kubelet reads the answer from the container's
image and command, as a student would predict it:

- well-known servers (nginx, httpd, redis, mysql, ...) serve until stopped and print their
  start-up lines;
- shell images (busybox, alpine, ubuntu, ...) run their command: ``sleep N`` lasts N simulated
  seconds, ``echo`` prints and goes on, ``exit N`` / ``false`` end with that code, ``env`` and
  ``printenv`` print the environment, ``sleep infinity`` and ``while true`` loops never end; with no
  command their shell has no input and exits 0 at once;
- an image that is neither runs until stopped (most images are services), unless its Pod is meant
  to end (restartPolicy Never or OnFailure) or it is a regular init container, when its command is
  taken to be short;
- the Pod annotations ``clusterviz.io/exit-after`` (a duration) and ``clusterviz.io/exit-code`` script
  any other behaviour and win over all of the above;
- a container holding more memory than its limit (``memory.py``) is OOMKilled a second after it starts,
  whatever it was going to do.

Pure functions: the kubelet follows ``behaviour_of`` on the simulated clock, and the logs the API
server returns are ``output`` stamped with the times the kubelet reported.
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass
from typing import Any, Final

from clusterviz.apimachinery.duration import parse_go_duration

from . import images, memory

EXIT_AFTER_ANNOTATION: Final = "clusterviz.io/exit-after"
EXIT_CODE_ANNOTATION: Final = "clusterviz.io/exit-code"
MAX_EXIT_CODE: Final = 255
# How long a Pod meant to end runs a command this module cannot read.
BATCH_RUN_SECONDS: Final = 5.0
# How long a container over its memory limit runs before the OOM killer ends it.
OOM_AFTER_SECONDS: Final = 1.0

SHELL_IMAGES = frozenset({"busybox", "alpine", "ubuntu", "debian", "centos", "fedora", "bash", "amazonlinux", "rockylinux"})
SHELLS = frozenset({"sh", "bash", "ash", "dash", "/bin/sh", "/bin/bash", "/bin/ash", "/usr/bin/bash"})
# Start-up lines of well-known servers ({time} is replaced by the start time in the server's own format).
SERVERS: dict[str, tuple[str, ...]] = {
    "nginx": (
        "/docker-entrypoint.sh: /docker-entrypoint.d/ is not empty, will attempt to perform configuration",
        "/docker-entrypoint.sh: Configuration complete; ready for start up",
        "{nginx} [notice] 1#1: using the \"epoll\" event method",
        "{nginx} [notice] 1#1: start worker processes",
    ),
    "httpd": (
        "[{httpd}] [mpm_event:notice] [pid 1:tid 1] AH00489: Apache/2.4 configured -- resuming normal operations",
        "[{httpd}] [core:notice] [pid 1:tid 1] AH00094: Command line: 'httpd -D FOREGROUND'",
    ),
    "redis": ("1:M {redis} * Server initialized", "1:M {redis} * Ready to accept connections tcp"),
    "mysql": ("{iso} 0 [System] [MY-010931] [Server] /usr/sbin/mysqld: ready for connections. port: 3306",),
    "postgres": ("{iso} [1] LOG:  database system is ready to accept connections",),
    "mongo": ('{{"t":{{"$date":"{iso}"}},"s":"I","c":"NETWORK","msg":"Waiting for connections","attr":{{"port":27017}}}}',),
    "memcached": (),
    "pause": (),
}
# Images built on nginx (the seeds' soscscs/myapp).
SERVER_ALIASES = {"myapp": "nginx"}


@dataclass(frozen=True)
class Line:
    """A line the process prints, ``at`` simulated seconds after it started."""

    at: float
    text: str


@dataclass(frozen=True)
class Behaviour:
    """A container's process: when it exits (None: never by itself), with which code, what it prints."""

    exit_after: float | None = None
    exit_code: int = 0
    output: tuple[Line, ...] = ()
    # Start-up lines of a known server, formatted with the start time when the logs are read.
    server: str = ""
    # How the runtime words its end, when it is not its own exit ("OOMKilled").
    reason: str = ""


def _basename(reference: str) -> str:
    return images.parse(reference).repository.rsplit("/", 1)[-1]


def _annotated(pod: dict[str, Any]) -> tuple[float | None, int | None]:
    annotations = (pod.get("metadata") or {}).get("annotations") or {}
    after: float | None = None
    code: int | None = None
    try:
        after = max(parse_go_duration(str(annotations[EXIT_AFTER_ANNOTATION])), 0.0)
    except (KeyError, ValueError):
        pass
    try:
        value = int(str(annotations[EXIT_CODE_ANNOTATION]))
        code = value if 0 <= value <= MAX_EXIT_CODE else None
    except (KeyError, ValueError):
        pass
    return after, code


def behaviour_of(pod: dict[str, Any], spec: dict[str, Any], env: dict[str, str] | None = None) -> Behaviour:
    """What the container ``spec`` of ``pod`` does (``env``: its resolved environment, for env/printenv)."""
    batch = _meant_to_end(pod, spec)
    after, code = _annotated(pod)
    base = _from_image_and_command(spec, env or {}, (pod.get("metadata") or {}).get("name", ""), batch)
    if memory.out_of_memory(pod, spec):
        # Over its memory limit: the kernel kills it as soon as it has allocated.
        printed = tuple(line for line in base.output if line.at <= OOM_AFTER_SECONDS)
        return Behaviour(OOM_AFTER_SECONDS, memory.OOM_EXIT_CODE, printed, base.server, memory.OOM_REASON)
    if after is None and code is None:
        return base
    return Behaviour(
        after if after is not None else (base.exit_after if base.exit_after is not None else BATCH_RUN_SECONDS),
        code if code is not None else base.exit_code,
        base.output,
        base.server,
    )


def _meant_to_end(pod: dict[str, Any], spec: dict[str, Any]) -> bool:
    """A container whose command is taken to be short: in a Pod meant to end, or a regular init container."""
    pod_spec = pod.get("spec") or {}
    if pod_spec.get("restartPolicy") in ("Never", "OnFailure"):
        return True
    name = spec.get("name")
    return any(
        isinstance(c, dict) and c.get("name") == name and c.get("restartPolicy") != "Always"
        for c in pod_spec.get("initContainers") or []
    )


def _from_image_and_command(spec: dict[str, Any], env: dict[str, str], pod_name: str, batch: bool) -> Behaviour:
    name = _basename(str(spec.get("image") or ""))
    name = SERVER_ALIASES.get(name, name)
    command = [str(a) for a in spec.get("command") or []]
    args = [str(a) for a in spec.get("args") or []]
    argv = command + args if command else args
    if not command and name in SERVERS and not (args and args[0] in SHELLS):
        return Behaviour(server=name)  # a server's arguments are its options: it still serves
    if argv:
        if argv[0] in SHELLS and len(argv) >= 3 and argv[1] == "-c":
            return _run_script(argv[2], env, pod_name)
        if argv[0] in SHELLS and len(argv) == 1:
            return Behaviour(exit_after=0.0)
        if name in SHELL_IMAGES or _basename(argv[0]) in _COMMANDS:
            return _run_script(shlex.join(argv), env, pod_name)
        return Behaviour(exit_after=BATCH_RUN_SECONDS) if batch else Behaviour()
    if name in SHELL_IMAGES:
        return Behaviour(exit_after=0.0)  # the default command is a shell, and it has no input
    if name == "hello-world":
        return Behaviour(exit_after=0.0, output=(Line(0.0, "Hello from Docker!"),))
    return Behaviour(exit_after=BATCH_RUN_SECONDS) if batch else Behaviour()


def script_of(spec: dict[str, Any]) -> str | None:
    """The shell script a container runs (``sh -c SCRIPT``, or a shell image's command); None if it runs none."""
    name = _basename(str(spec.get("image") or ""))
    command = [str(a) for a in spec.get("command") or []]
    args = [str(a) for a in spec.get("args") or []]
    argv = command + args if command else args
    if len(argv) >= 3 and argv[0] in SHELLS and argv[1] == "-c":
        return argv[2]
    if argv and (name in SHELL_IMAGES or _basename(argv[0]) in _COMMANDS):
        return shlex.join(argv)
    return None


_COMMANDS = frozenset({"sleep", "echo", "exit", "true", "false", "env", "printenv", "hostname", "date", "tail"})
_FOREVER = re.compile(r"^\s*while\s+(true|:)\s*;?\s*do\b")


def _run_script(script: str, env: dict[str, str], pod_name: str) -> Behaviour:
    """A small shell: ``;``, ``&&``, ``||`` and newlines between simple commands."""
    if _FOREVER.match(script):
        return Behaviour(output=tuple(_loop_output(script, env, pod_name)))
    clock = 0.0
    out: list[Line] = []
    code = 0
    for separator, statement in statements(script):
        if separator == "&&" and code != 0 or separator == "||" and code == 0:
            continue
        try:
            words = shlex.split(statement)
        except ValueError:
            return Behaviour(exit_after=clock, exit_code=2, output=(*out, Line(clock, f"sh: syntax error: {statement}")))
        if not words:
            continue
        verb, rest = _basename(words[0]), words[1:]
        if verb == "sleep":
            if rest and rest[0] == "infinity":
                return Behaviour(output=tuple(out))
            try:
                clock += float(rest[0]) if rest else 0.0
                code = 0
            except ValueError:
                out.append(Line(clock, f"sleep: invalid number '{rest[0]}'"))
                code = 1
        elif verb == "tail" and rest[-2:] == ["-f", "/dev/null"]:
            return Behaviour(output=tuple(out))
        elif verb == "echo":
            out.append(Line(clock, " ".join(_expand(w, env, pod_name) for w in rest if w != "-n")))
            code = 0
        elif verb == "exit":
            return Behaviour(exit_after=clock, exit_code=_exit_code(rest), output=tuple(out))
        elif verb in ("true", ":"):
            code = 0
        elif verb == "false":
            code = 1
        elif verb in ("env", "printenv"):
            out.extend(Line(clock, line) for line in _environment(rest, env, pod_name))
            code = 0
        elif verb == "hostname":
            out.append(Line(clock, pod_name))
            code = 0
        else:
            code = 0  # a command the simulation does not model runs quietly
    return Behaviour(exit_after=clock, exit_code=code, output=tuple(out))


def statements(script: str) -> list[tuple[str, str]]:
    """(separator before it, statement) for each simple command of a script."""
    parts = re.split(r"(&&|\|\||;|\n)", script)
    out: list[tuple[str, str]] = []
    separator = ";"
    for part in parts:
        if part in ("&&", "||", ";", "\n"):
            separator = ";" if part == "\n" else part
        elif part.strip():
            out.append((separator, part.strip()))
    return out


def _exit_code(rest: list[str]) -> int:
    try:
        return int(rest[0]) % 256 if rest else 0
    except ValueError:
        return 2


def _expand(word: str, env: dict[str, str], pod_name: str) -> str:
    """``$VAR`` and ``${VAR}`` from the environment (HOSTNAME is the Pod's name)."""
    values = {"HOSTNAME": pod_name, **env}
    return re.sub(r"\$\{(\w+)\}|\$(\w+)", lambda m: values.get(m.group(1) or m.group(2), ""), word)


def _environment(names: list[str], env: dict[str, str], pod_name: str) -> list[str]:
    values = {"PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin", "HOSTNAME": pod_name, **env}
    if names:
        return [values[n] for n in names if n in values]
    return [f"{key}={value}" for key, value in values.items()]


def _loop_output(script: str, env: dict[str, str], pod_name: str) -> list[Line]:
    """The first pass of a ``while true`` loop's echo lines (the logs show the loop has started)."""
    body = script.split("do", 1)[1].rsplit("done", 1)[0]
    inner = _run_script(body, env, pod_name)
    return list(inner.output)
