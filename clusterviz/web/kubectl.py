"""kubectl's side of the page's actions: the command each stands for, its answer, and writes held on the bus.

An action's reply shows ``$ kubectl ...`` and kubectl's answer in the pane
(``console.html``). A write the simulation holds (step mode: it waits at hop
1 until stepped) is not waited for: the reply says at once where it waits,
the write goes on in the background, and the page fetches its outcome with a
long poll (``console/result/<token>``).
"""

from __future__ import annotations

import asyncio
import secrets
import shlex
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.translation import gettext as _

from clusterviz.api import errors
from clusterviz.api.client import Client

if TYPE_CHECKING:
    from .yaml_form import Outcome
from .language import kubectl_line

# How long an action's reply waits for its write before answering that the write is on its way.
QUEUED_AFTER = 0.3
# How long one long poll for a queued action's outcome waits before the page asks again.
RESULT_WAIT = 20.0
# Outcomes nobody fetched are dropped after this many newer actions.
KEPT_RUNS = 200


@dataclass
class Reply:
    """How an action ended: the line for the page's flash area (or the editor's outcomes), and kubectl's lines.

    ``meaning`` says in the page's language what kubectl's answer means: a Chinese page's flash area shows
    kubectl's first line as it is with the meaning beside it, instead of ``flash``.
    """

    ok: bool
    flash: str
    output: list[str] = field(default_factory=list)
    outcomes: list[Outcome] | None = None
    meaning: str = ""

    @property
    def shown(self) -> str:
        """The flash area's line, in the page's language (see ``language.kubectl_line``)."""
        return kubectl_line(self.output[0] if self.output else "", self.meaning, self.flash)


Work = Callable[[], Awaitable[Reply]]


@dataclass
class _Run:
    """An action whose write is still on its way: its cluster and command, what the page was told, and the work."""

    cluster: str
    line: str
    notice: str
    task: asyncio.Task[Reply]


_runs: dict[str, _Run] = {}


def answered(line: str, meaning: str, words: str = "") -> Reply:
    """A write kubectl answers with ``line``; ``meaning`` is what that means, ``words`` what an English page says."""
    return Reply(True, words or line, [line], meaning=meaning)


def command(*words: str) -> str:
    """``kubectl`` and its arguments as a shell line (what a user would type)."""
    return shlex.join(["kubectl", *words])


def namespace_flag(namespace: str) -> list[str]:
    """``-n NS``, left out for the default namespace as people type it."""
    return [] if namespace in ("", "default") else ["-n", namespace]


def server_error(exc: errors.StatusError, when: str = "") -> str:
    """A failed request as kubectl prints it (kubectl's cmdutil.StandardErrorMessage).

    ``when`` names what kubectl was doing to a document read from standard input
    (``creating``, ``deleting``): it says so before the server's message.
    """
    details = exc.details or {}
    if exc.reason != "Invalid" or not (details.get("kind") or details.get("name")):
        message = f'error when {when} "STDIN": {exc.message}' if when else exc.message
        return f"Error from server ({exc.reason}): {message}"
    causes = [
        f"{c['field']}: {c.get('message', '')}" if c.get("field") else str(c.get("message", ""))
        for c in details.get("causes") or []
    ]
    invalid = f'The {details.get("kind", "")} "{details.get("name", "")}" is invalid'
    if not causes:
        return invalid
    # An aggregate of several errors prints as a bracketed list.
    return f"{invalid}: {causes[0] if len(causes) == 1 else '[' + ', '.join(causes) + ']'}"


def client_error(message: str) -> str:
    """What kubectl prints when it refuses the input itself."""
    return f"error: {message}"


async def run(request: HttpRequest, cluster: str, line: str, work: Work, held_notice: str = "") -> HttpResponse:
    """Start an action; its reply (flash + the pane's entry) once done, or the queued notice if it is held.

    ``line`` is the kubectl command the action stands for. The work runs as a
    task of its own, so a write held at hop 1 completes after the reply has
    gone, whenever the class steps it. ``held_notice`` says how this page steps it.
    """
    task = asyncio.ensure_future(work())
    token = secrets.token_urlsafe(9)
    done, _pending = await asyncio.wait({task}, timeout=QUEUED_AFTER)
    if task in done:
        return _outcome(request, cluster, token, line, task.result(), queued=False)
    try:
        simulation = await Client(cluster, "dashboard").get("simulations", "default")
        held = simulation["spec"]["mode"] in ("step", "paused")
    except errors.StatusError:
        held = False  # the reply still says the write is on its way
    if not held:
        # Nothing holds the write, only a busy server: answer when it is done, as kubectl waits for it.
        done, _pending = await asyncio.wait({task}, timeout=RESULT_WAIT)
        if task in done:
            return _outcome(request, cluster, token, line, task.result(), queued=False)
    notice = (held_notice or _("waiting at hop 1: press Next numbered hop")) if held else _(
        "sent; waiting for the API server's answer"
    )
    _runs[token] = _Run(cluster, line, notice, task)
    while len(_runs) > KEPT_RUNS:
        _runs.pop(next(iter(_runs)))
    context = {"cluster": cluster, "token": token, "line": line, "notice": notice}
    return render(request, "web/console.html#queued", context)


async def result(request: HttpRequest, cluster: str, token: str) -> HttpResponse:
    """The outcome of a queued action (a long poll: answers when it is done, or asks the page to ask again)."""
    queued = _runs.get(token)
    if queued is None or queued.cluster != cluster:
        return render(request, "web/flash.html", {"error": _("this action's outcome is no longer known")})
    done, _pending = await asyncio.wait({queued.task}, timeout=RESULT_WAIT)
    if queued.task not in done:
        return render(request, "web/console.html#poll", {"cluster": cluster, "token": token, "notice": queued.notice})
    _runs.pop(token, None)
    return _outcome(request, cluster, token, queued.line, queued.task.result(), queued=True)


def _outcome(request: HttpRequest, cluster: str, token: str, line: str, reply: Reply, queued: bool) -> HttpResponse:
    """The flash (or the YAML editor's result list) and the pane's entry: appended, or replacing the queued one."""
    context = {"cluster": cluster, "token": token, "line": line, "reply": reply, "queued": queued}
    return render(request, "web/console.html#outcome", context)
