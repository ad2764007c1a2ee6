"""Start the scale-out set on this machine: N Daphne web processes and M simworkers.

    .venv/bin/python scripts/scaleout.py --web 2 --workers 2 --port 8000

The web processes listen on --port, --port+1, ... with their engines off; the workers run the
engines, each cluster's in one worker at a time. They share PostgreSQL (DATABASE_URL) and Redis
(REDIS_URL), which default to the README's local servers; ``migrate`` runs first. Commits do not
wait for PostgreSQL's disk unless CLUSTERVIZ_PG_SYNCHRONOUS_COMMIT says so (``SYNCHRONOUS_COMMIT``). Each line of
output is prefixed with its process's name (web.1, worker.1, ...), as Procfile runners do.

Ctrl-C or SIGTERM stops them all. A process that dies is reported and the others keep running,
so a lesson can ``kill -9`` a worker (its pid is printed) and watch another take its clusters over.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
# A commit that waits for the disk (PostgreSQL's default) holds each worker's one writer thread for the
# disk's flush, 2-3 ms here, on every batch of writes; ``off`` risks the last fraction of a second of
# writes if the machine fails, as the embedded SQLite's synchronous=NORMAL does.
SYNCHRONOUS_COMMIT = {"CLUSTERVIZ_PG_SYNCHRONOUS_COMMIT": "off"}
# The README's local servers; INFO so that Daphne says where it listens and workers what they run.
DEFAULTS = {
    "DATABASE_URL": "postgres://postgres@127.0.0.1:5432/test",
    "REDIS_URL": "redis://127.0.0.1:6379/0",
    "CLUSTERVIZ_LOG_LEVEL": "INFO",
    **SYNCHRONOUS_COMMIT,
}
STOP_SECONDS = 15

_print_lock = threading.Lock()


def say(name: str, line: str) -> None:
    """One line of output, prefixed with the process it is about."""
    with _print_lock:
        sys.stdout.write(f"{name:<9}| {line.rstrip()}\n")
        sys.stdout.flush()


def relay(name: str, stream: IO[bytes]) -> None:
    """Copy a child's output to ours, line by line, until it closes."""
    for raw in stream:
        say(name, raw.decode(errors="replace"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--web", type=int, default=2, help="Daphne processes (default 2)")
    parser.add_argument("--workers", type=int, default=2, help="simworker processes (default 2)")
    parser.add_argument("--port", type=int, default=8000, help="first web port (default 8000)")
    parser.add_argument("--host", default="127.0.0.1", help="address the web processes bind (default 127.0.0.1)")
    args = parser.parse_args()

    env = {**DEFAULTS, **os.environ, "PYTHONUNBUFFERED": "1"}
    if not env["DATABASE_URL"].startswith(("postgres://", "postgresql://")) or not env["REDIS_URL"]:
        parser.error("scale-out needs PostgreSQL (DATABASE_URL) and Redis (REDIS_URL); SQLite is for one process")
    manage = [sys.executable, str(ROOT / "manage.py")]
    migrated = subprocess.run([*manage, "migrate", "--noinput"], env=env, cwd=ROOT, check=False)
    if migrated.returncode != 0:
        return migrated.returncode

    commands: dict[str, tuple[list[str], dict[str, str]]] = {}
    for i in range(args.web):
        port = str(args.port + i)
        daphne = [sys.executable, "-m", "daphne", "-b", args.host, "-p", port, "clusterviz.asgi:application"]
        commands[f"web.{i + 1}"] = (daphne, {**env, "CLUSTERVIZ_ENGINES": "false"})
    for i in range(args.workers):
        commands[f"worker.{i + 1}"] = ([*manage, "simworker"], env)

    children: dict[int, tuple[str, subprocess.Popen[bytes]]] = {}
    for name, (command, child_env) in commands.items():
        # A session of its own: Ctrl-C reaches only this launcher, which stops the children itself.
        child = subprocess.Popen(
            command, env=child_env, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True
        )
        children[child.pid] = (name, child)
        assert child.stdout is not None
        threading.Thread(target=relay, args=(name, child.stdout), daemon=True).start()
        say(name, f"started, pid {child.pid}: {' '.join(command[1:])}")

    stopping = threading.Event()

    def stop(signum: int, _frame: object) -> None:
        if not stopping.is_set():
            stopping.set()
            say("scaleout", f"{signal.Signals(signum).name}: stopping every process")
            for _, child in children.values():
                if child.poll() is None:
                    child.terminate()
            # Whatever has not stopped by then is killed (the main loop keeps reaping meanwhile).
            threading.Timer(STOP_SECONDS, lambda: [c.kill() for _, c in children.values() if c.poll() is None]).start()

    signal.signal(signal.SIGINT, stop)
    signal.signal(signal.SIGTERM, stop)
    failed = False
    while children:
        pid, status = os.waitpid(-1, 0)
        if pid not in children:
            continue
        name, child = children.pop(pid)
        code = child.returncode = os.waitstatus_to_exitcode(status)
        failed |= code != 0 and not stopping.is_set()
        say(name, f"exited with {code}" + ("" if stopping.is_set() else f"; {len(children)} processes still run"))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
