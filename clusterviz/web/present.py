"""The presenter view: the cluster map full screen, one Pod's story 1-13, the lesson's script.

``/c/<cluster>/present/?lesson=<slug>`` loads a lesson (once: a reload resumes it). Next steps the
simulation until the followed Pod's next beat is complete; everything else that happens meanwhile
is real but only counted. The page draws from a websocket of JSON frames (presenter consumer) and
from ``story.json``; every change still travels the one path, list-watch through the API.
"""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from clusterviz import lessons
from clusterviz.api import errors
from clusterviz.api.client import Client
from clusterviz.lessons import runner
from clusterviz.lessons.script import Action, Lesson

from . import story
from .actions import node_meaning
from .captions import CLIENTS, caption, timer
from .language import chinese, kubectl_line
from .models import Presentation

log = logging.getLogger(__name__)

# Next delivers at most this many messages looking for the followed Pod's next beat, and moves the clock
# on to at most this many timers when nothing is waiting.
NEXT_LIMIT = 3000
SKIP_LIMIT = 20
SIMULATION = "/apis/clusterviz.io/v1/simulations/default"
# Writes started by the script's buttons, by number: kept until their outcome has been shown (a write
# held in step mode finishes only after Next has delivered its hops).
_ACTIONS: dict[int, tuple[asyncio.Task[Any], Action]] = {}
_KEPT = 200
# What kubectl's answer to a script button means, beside it on a Chinese page (node actions: as the cards say it).
DONE = {
    "apply": gettext_lazy("applied"),
    "delete-pod": gettext_lazy("Pod deleted"),
    "scale": gettext_lazy("replica count changed"),
    "set-image": gettext_lazy("image changed"),
}


def _text(en: str, zh: str) -> str:
    return zh if chinese() and zh else en


async def _presentation(cluster: str) -> Presentation:
    found, _created = await Presentation.objects.aget_or_create(cluster=cluster)
    return found


async def _simulation(client: Client) -> dict[str, Any]:
    try:
        return await client.get("simulations", "default")
    except errors.StatusError as exc:
        if exc.code == 404:
            raise Http404("no such cluster") from None
        raise


def _root_of(lesson: Lesson) -> str:
    """The object a lesson's story follows: its own choice, else its manifest's first object."""
    if lesson.follow:
        return lesson.follow
    kind = name = ""
    for line in lesson.manifest.splitlines():
        stripped = line.strip()
        if line.startswith("kind:"):
            kind = stripped.split(":", 1)[1].strip()
        elif line.startswith("  name:") and not name:
            name = stripped.split(":", 1)[1].strip()
        if kind and name:
            return f"{kind}/{name}"
    return ""


async def load_lesson(cluster: str, lesson: Lesson) -> Presentation:
    """Reset ``cluster`` to the lesson's start and remember where its story begins."""
    start = await runner.load(cluster, lesson)
    presentation = await _presentation(cluster)
    presentation.lesson, presentation.step, presentation.start_seq = lesson.slug, 0, start
    presentation.root, presentation.pod = _root_of(lesson), ""
    await presentation.asave()
    return presentation


def _step_context(lesson: Lesson | None, index: int, cluster: str) -> dict[str, Any]:
    if lesson is None or not lesson.steps:
        return {}
    index = max(0, min(index, len(lesson.steps) - 1))
    step = lesson.steps[index]
    action = step.action
    return {
        "index": index,
        "count": len(lesson.steps),
        "text": _text(step.text, step.text_zh),
        "question": _text(step.question, step.question_zh),
        "action": {
            "label": _text(action.label, action.label_zh),
            "kubectl": action.kubectl(),
            "url": reverse("present-action", args=[cluster]),
        }
        if action
        else None,
    }


async def present_page(request: HttpRequest, cluster: str) -> HttpResponse:
    """The presenter view; ``?lesson=<slug>`` loads that lesson unless it is the one already shown."""
    client = Client(cluster, "dashboard")
    simulation = await _simulation(client)
    presentation = await _presentation(cluster)
    wanted = request.GET.get("lesson", "")
    if wanted and wanted not in lessons.BY_SLUG:
        raise Http404(f"no lesson {wanted}")
    if wanted and wanted != presentation.lesson:
        presentation = await load_lesson(cluster, lessons.BY_SLUG[wanted])
        simulation = await _simulation(client)
    lesson = lessons.BY_SLUG.get(presentation.lesson)
    nodes = (await client.list("nodes"))["items"]
    return render(
        request,
        "web/present.html",
        {
            "cluster": cluster,
            "lesson": lesson,
            "lesson_title": _text(lesson.title, lesson.title_zh) if lesson else "",
            "lessons": [(item.slug, _text(item.title, item.title_zh)) for item in lessons.LESSONS],
            "step": _step_context(lesson, presentation.step, cluster),
            "simulation": simulation,
            "nodes": sorted(n["metadata"]["name"] for n in nodes),
        },
    )


async def _trace(client: Client, since: int) -> list[dict[str, Any]]:
    """The lesson's messages, oldest first (the trace is listed a page at a time)."""
    items: list[dict[str, Any]] = []
    while True:
        page = await client.request("GET", "/apis/clusterviz.io/v1/flowmessages", query={"sinceSeq": str(since)})
        batch = page.body["items"]
        items.extend(batch)
        if len(batch) < 5000:
            return items
        since = batch[-1]["seq"]


def _story(presentation: Presentation, messages: list[dict[str, Any]]) -> story.Story:
    return story.build(messages, story.Ref.parse(presentation.root), presentation.pod)


def story_payload(told: story.Story, messages: list[dict[str, Any]], pinned: bool) -> dict[str, Any]:
    """The JSON the presenter draws: each complete beat with its messages and captions, and the rest counted."""
    beats = []
    for beat in told.done:
        hops = [{**m, "caption": caption(m, pinned=pinned)} for m in beat.messages]
        beats.append({**beat.to_dict(), "messages": hops})
    in_story = told.story_seqs()
    return {
        "root": str(told.root) if told.root else "",
        "pod": told.pod,
        "beats": beats,
        "progress": told.progress,
        "last": story.LAST_HOP,
        "skipped": list(told.skipped),
        "others": sum(1 for m in messages if m["seq"] not in in_story),
        "lastSeq": messages[-1]["seq"] if messages else 0,
    }


async def _pinned(client: Client, pod: str, messages: list[dict[str, Any]]) -> bool:
    """Whether the followed Pod was written with its node already set, so the scheduler is bypassed.

    A Pod the scheduler places has no node until its binding (hop 10); one with a node and no
    binding in the trace was pinned by ``spec.nodeName``.
    """
    if not pod or any(m["object"]["kind"] == "Binding" and m["object"]["name"] == pod for m in messages):
        return False
    try:
        found = await client.get("pods", pod, "default")
    except errors.StatusError:
        return False
    return bool((found.get("spec") or {}).get("nodeName"))


async def story_json(request: HttpRequest, cluster: str) -> JsonResponse:
    """The followed Pod's story so far."""
    client = Client(cluster, "dashboard")
    presentation = await _presentation(cluster)
    messages = await _trace(client, presentation.start_seq)
    told = _story(presentation, messages)
    return JsonResponse(story_payload(told, messages, await _pinned(client, told.pod, messages)))


def _worth_a_stop(message: dict[str, Any], told: story.Story) -> bool:
    """Besides the story's own beats, Next stops where a client's write starts (a button's label, scale ...),
    and, once the story is told, at every numbered hop: the lesson goes on hop by hop."""
    if told.progress >= story.LAST_HOP:
        return message.get("step") is not None
    return message.get("step") == 1 and message.get("from") in CLIENTS


async def _deliver(client: Client) -> dict[str, Any] | None:
    """One message delivered; None when nothing is waiting on the bus."""
    response = await client.request("POST", f"{SIMULATION}/step", payload={})
    if response.body.get("kind") != "FlowMessage":
        return None
    return {k: v for k, v in response.body.items() if k not in ("apiVersion", "kind", "metadata")}


async def _skip(client: Client) -> dict[str, Any] | None:
    """Move the clock on to the next timer (an image pull, a node's grace period): what it was, or None."""
    response = await client.request("POST", f"{SIMULATION}/step", query={"untilTimer": "true"}, payload={})
    if response.body.get("reason") not in ("TimerFired", "MessageDelivered"):
        return None
    return dict((response.body.get("details") or {}).get("next") or {"time": 0, "what": ""})


def _timer_stop(due: dict[str, Any]) -> dict[str, Any]:
    """A timer that fired, shown like a hop without a number."""
    return {"seq": 0, "from": due.get("component", ""), "to": due.get("component", ""), "verb": "timer", "step": None,
            "object": {"kind": "", "namespace": "", "name": ""},
            "caption": {"what": f"t = {float(due.get('time', 0)):.1f} s: {timer(due.get('what', ''))}",
                        "why": _("Nothing was waiting on the bus, so the simulated clock moved on to the next timer.")}}


@require_POST
async def next_beat(request: HttpRequest, cluster: str) -> JsonResponse:
    """Deliver messages until the followed Pod's story has one more complete beat, or another hop worth a stop.

    When nothing is waiting on the bus but a timer is set (an image pull, a node's grace period, the
    scheduler's back-off), the clock moves on to it, so Next always takes the lesson forward.
    """
    client = Client(cluster, "dashboard")
    presentation = await _presentation(cluster)
    messages = await _trace(client, presentation.start_seq)
    told = _story(presentation, messages)
    before = len(told.done)
    delivered, skips, stop, timer = 0, 0, None, None
    while delivered < NEXT_LIMIT:
        message = await _deliver(client)
        if message is None:
            due = await _skip(client) if skips < SKIP_LIMIT else None
            if due is None:
                break
            skips += 1
            # What came due before the timer was delivered by the skip: read it from the trace.
            messages = await _trace(client, presentation.start_seq)
            delivered = max(delivered, 1)
            if not due.get("what", "").endswith("heartbeat"):
                told = _story(presentation, messages)
                timer = _timer_stop(due)
                break
        else:
            delivered += 1
            messages.append(message)
        was_told = told
        told = _story(presentation, messages)
        if len(told.done) > before:
            break
        if message is not None and _worth_a_stop(message, was_told):
            stop = message
            break
    payload = story_payload(told, messages, await _pinned(client, told.pod, messages))
    payload["delivered"] = delivered
    if stop is not None:
        payload["stop"] = {**stop, "caption": caption(stop)}
    elif timer is not None and len(told.done) == before:
        payload["stop"] = timer
    return JsonResponse(payload)


@require_POST
async def follow(request: HttpRequest, cluster: str) -> JsonResponse:
    """Follow another Pod's story (a click on its chip); an empty name goes back to the lesson's first Pod."""
    presentation = await _presentation(cluster)
    presentation.pod = request.POST.get("pod", "")[:253]
    await presentation.asave()
    return await story_json(request, cluster)


@require_POST
async def choose_lesson(request: HttpRequest, cluster: str) -> HttpResponse:
    """Load (or restart) a lesson, then show the presenter view."""
    lesson = lessons.BY_SLUG.get(request.POST.get("lesson", ""))
    if lesson is None:
        raise Http404("no such lesson")
    await load_lesson(cluster, lesson)
    response = HttpResponse(status=204)
    response["HX-Redirect"] = reverse("present", args=[cluster]) + f"?lesson={lesson.slug}"
    return response


@require_POST
async def set_step(request: HttpRequest, cluster: str) -> HttpResponse:
    """Move the script to another step (its text, button and question)."""
    presentation = await _presentation(cluster)
    lesson = lessons.BY_SLUG.get(presentation.lesson)
    try:
        index = int(request.POST.get("step", "0"))
    except ValueError:
        index = presentation.step
    if lesson is not None:
        presentation.step = max(0, min(index, len(lesson.steps) - 1))
        await presentation.asave()
    context = {"cluster": cluster, "step": _step_context(lesson, presentation.step, cluster)}
    return render(request, "web/present.html#script", context)


@require_POST
async def run_action(request: HttpRequest, cluster: str) -> HttpResponse:
    """The current step's button: start its write (in step mode it waits at hop 1 until Next) and say so."""
    presentation = await _presentation(cluster)
    lesson = lessons.BY_SLUG.get(presentation.lesson)
    step = lesson.steps[presentation.step] if lesson and presentation.step < len(lesson.steps) else None
    if lesson is None or step is None or step.action is None:
        return render(request, "web/present.html#outcome", {"error": _("this step has no action")})
    action = step.action
    simulation = await _simulation(Client(cluster, "dashboard"))
    task = asyncio.ensure_future(runner.run(cluster, action, lesson.manifest))
    number = max(_ACTIONS, default=0) + 1
    _ACTIONS[number] = (task, action)
    for old in sorted(_ACTIONS)[:-_KEPT]:
        del _ACTIONS[old]
    # A write in step mode is hop 1 waiting for Next; elsewhere it finishes within a few simulated hops.
    try:
        await asyncio.wait_for(asyncio.shield(task), 0.5 if simulation["spec"]["mode"] == "step" else 5)
    except TimeoutError:
        pass
    return _outcome(request, cluster, number)


def _answer(action: Action, outcome: runner.Outcome) -> str:
    """kubectl's answer to a script button, with what it means beside it on a Chinese page."""
    if not outcome.ok:
        refused_by_server = outcome.message.startswith("Error from server")
        meaning = _("refused by the API server") if refused_by_server else _("refused by kubectl")
    elif action.kind in runner.NODE_ACTIONS:
        meaning = node_meaning(runner.NODE_ACTIONS[action.kind], action.node)
    else:
        meaning = str(DONE[action.kind])
    return kubectl_line(outcome.message, meaning)


def _outcome(request: HttpRequest, cluster: str, number: int) -> HttpResponse:
    task, action = _ACTIONS[number]
    outcome = task.result() if task.done() and not task.cancelled() and task.exception() is None else None
    failed = task.done() and (task.cancelled() or task.exception() is not None)
    context = {
        "kubectl": action.kubectl(),
        "outcome": {"ok": outcome.ok, "message": _answer(action, outcome)} if outcome else None,
        "error": _("the action failed") if failed else "",
        "poll": "" if task.done() else reverse("present-outcome", args=[cluster, number]),
    }
    return render(request, "web/present.html#outcome", context)


async def action_outcome(request: HttpRequest, cluster: str, number: int) -> HttpResponse:
    """How a script button's write ended (polled while it waits on the bus)."""
    if number not in _ACTIONS:
        raise Http404("no such action")
    return _outcome(request, cluster, number)
