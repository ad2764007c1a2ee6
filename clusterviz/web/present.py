"""The presenter view: the cluster map full screen, one Pod's story 1-13, the lesson's script.

``/c/<cluster>/present/?lesson=<slug>`` loads a lesson (once: a reload resumes it). Next steps the
simulation until the followed Pod's next beat is complete; everything else that happens meanwhile
is real but only counted. The page draws from a websocket of JSON frames (presenter consumer) and
from ``story.json``; every change still travels the one path, list-watch through the API.
"""

from __future__ import annotations

import logging
import math
from datetime import timedelta
from typing import Any

from django.http import Http404, HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy
from django.views.decorators.http import require_POST

from clusterviz import lessons
from clusterviz.api import clock, errors
from clusterviz.api.client import Client
from clusterviz.lessons import runner
from clusterviz.lessons.script import Action, Lesson

from . import kubectl, story
from .actions import node_meaning
from .captions import CLIENTS, caption
from .cluster_map import DEFAULT_TOLERATION_SECONDS, evicting_taint, eviction_at
from .language import chinese, translate_upstream
from .models import Presentation

log = logging.getLogger(__name__)

# Next delivers at most this many messages looking for the followed Pod's next beat, and moves the clock
# on by at most this many simulated seconds when nothing is waiting.
NEXT_LIMIT = 3000
SKIP_SECONDS = 300.0
SIMULATION = "/apis/clusterviz.io/v1/simulations/default"
# What kubectl's answer to a script button means, beside it on a Chinese page (node actions: as the cards say it).
DONE = {
    "apply": gettext_lazy("applied"),
    "delete-pod": gettext_lazy("Pod deleted"),
    "scale": gettext_lazy("replica count changed"),
    "set-image": gettext_lazy("image changed"),
    "create-job": gettext_lazy("Job created"),
    "suspend": gettext_lazy("CronJob suspended"),
    "set-load": gettext_lazy("load set"),
    "drain": gettext_lazy("node drained"),
    "annotate": gettext_lazy("annotation changed"),
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


async def load_lesson(cluster: str, lesson: Lesson) -> Presentation:
    """Reset ``cluster`` to the lesson's start and remember where its story begins."""
    start = await runner.load(cluster, lesson)
    presentation = await _presentation(cluster)
    presentation.lesson, presentation.step, presentation.start_seq = lesson.slug, 0, start
    presentation.root, presentation.pod = lesson.followed, ""
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
        "last": told.last,
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
    namespace = next((m["object"]["namespace"] for m in messages if m["object"]["name"] == pod), "") or "default"
    try:
        found = await client.get("pods", pod, namespace)
    except errors.StatusError:
        return False
    return bool((found.get("spec") or {}).get("nodeName"))


async def _no_fit(client: Client, told: story.Story) -> dict[str, str] | None:
    """Why no node fits the followed Pod, when its story stops at the scheduler (upstream's message, translated)."""
    if not told.pod or told.progress != 9:
        return None
    namespace = next((m["object"]["namespace"] for b in told.beats for m in b.messages), "default") or "default"
    listed = await client.list("schedulingdecisions", namespace, label_selector=f"clusterviz.io/pod={told.pod}")
    latest = max(listed["items"], key=lambda d: d.get("attempt", 0), default=None)
    if latest is None or latest.get("selected"):
        return None
    message = str(latest.get("message") or "")
    return {"text": translate_upstream(message), "upstream": message}


async def _payload(client: Client, told: story.Story, messages: list[dict[str, Any]]) -> dict[str, Any]:
    payload = story_payload(told, messages, await _pinned(client, told.pod, messages))
    payload["noFit"] = await _no_fit(client, told)
    return payload


async def story_json(request: HttpRequest, cluster: str) -> JsonResponse:
    """The followed Pod's story so far."""
    client = Client(cluster, "dashboard")
    presentation = await _presentation(cluster)
    messages = await _trace(client, presentation.start_seq)
    return JsonResponse(await _payload(client, _story(presentation, messages), messages))


WRITES = frozenset({"create", "update", "patch", "delete", "bind"})


def _worth_a_stop(message: dict[str, Any], told: story.Story) -> bool:
    """Besides the story's own beats, where Next stops: a client's write starting (a button's label, scale ...),
    and, once the story is told, each change a component asks for (a node marked NotReady, a taint, an
    eviction, a new Pod) and each Pod handed to the scheduler or a kubelet; not the heartbeats and status
    bookkeeping that keep a quiet cluster ticking, nor the etcd round of every write."""
    if message.get("step") == 1 and message.get("from") in CLIENTS:
        return True
    if told.progress < told.last:
        return False
    kind, sender, verb = (message.get("object") or {}).get("kind"), str(message.get("from", "")), message.get("verb")
    if message.get("to") == "apiserver" and verb in WRITES:
        heartbeat = kind == "Lease" or (kind == "Node" and sender.startswith("kubelet"))
        bookkeeping = kind in story.OWNER_KINDS and verb == "update"
        return kind != "Event" and not heartbeat and not bookkeeping
    return message.get("step") in (9, 12) and sender == "apiserver"


async def _deliver(client: Client) -> dict[str, Any] | None:
    """One message delivered; None when nothing is waiting on the bus."""
    response = await client.request("POST", f"{SIMULATION}/step", payload={})
    if response.body.get("kind") != "FlowMessage":
        return None
    return {k: v for k, v in response.body.items() if k not in ("apiVersion", "kind", "metadata")}


async def _skip(client: Client) -> float | None:
    """Move the clock on to the next timer (an image pull, a node's grace period): its time, or None."""
    response = await client.request("POST", f"{SIMULATION}/step", query={"untilTimer": "true"}, payload={})
    if response.body.get("reason") not in ("TimerFired", "MessageDelivered"):
        return None
    return float(((response.body.get("details") or {}).get("next") or {}).get("time", 0.0))


async def _countdown_begun(client: Client, since: str, eviction_timeout: float) -> dict[str, Any] | None:
    """A NotReady node tainted NoExecute since the simulated moment ``since`` whose Pods are still to be
    evicted: where Next waits, so the class sees the countdown before the clock moves on to the eviction."""
    began = clock.parse(since)
    if began is None:
        return None
    for node in (await client.list("nodes"))["items"]:
        taint = evicting_taint(node)
        # timeAdded has whole seconds only, and the taint's write may have begun at the previous press.
        if taint is None or taint[0] < began.replace(microsecond=0) - timedelta(seconds=1):
            continue
        added, key = taint
        name = node["metadata"]["name"]
        pods = (await client.list("pods", field_selector=f"spec.nodeName={name}"))["items"]
        at = clock.parse(eviction_at(node, pods, eviction_timeout))
        now = clock.parse(str((await _simulation(client))["status"].get("wall", ""))) or began
        if at is not None and at > now:
            return {
                "what": _("%(node)s is tainted %(taint)s:NoExecute: its Pods are evicted in %(left)s s.")
                % {"node": name, "taint": key, "left": math.ceil((at - now).total_seconds())},
                "why": _("The taint-eviction controller leaves each Pod on the node for its tolerationSeconds "
                         "(%(seconds)s s here, 300 s by default), then evicts it. The next press moves the clock on.")
                % {"seconds": f"{(at - added).total_seconds():g}"},
            }
    return None


@require_POST
async def next_beat(request: HttpRequest, cluster: str) -> JsonResponse:
    """Deliver messages until the followed Pod's story has one more complete beat, or another hop worth a stop.

    When nothing waits on the bus, the clock moves on from timer to timer (an image pull, a node's grace
    period, the scheduler's back-off) until something worth a stop happens, for at most ``SKIP_SECONDS``
    of simulated time: Next takes the lesson forward, and says nothing is left when nothing is.
    """
    client = Client(cluster, "dashboard")
    presentation = await _presentation(cluster)
    simulation = await _simulation(client)
    began_at = str(simulation["status"].get("wall", ""))
    eviction_timeout = float(simulation["spec"].get("podEvictionTimeoutSeconds", DEFAULT_TOLERATION_SECONDS))
    messages = await _trace(client, presentation.start_seq)
    told = _story(presentation, messages)
    before = len(told.done)
    delivered, stop, began, wait = 0, None, None, None
    while delivered < NEXT_LIMIT:
        message = await _deliver(client)
        if message is None:
            due = await _skip(client)
            if due is None:
                break
            began = due if began is None else began
            if due - began > SKIP_SECONDS:
                break
            # What the timer set off (and anything due before it) was delivered by the skip.
            fresh = await _trace(client, messages[-1]["seq"] if messages else presentation.start_seq)
        else:
            fresh = [message]
        delivered += len(fresh)
        for message in fresh:
            messages.append(message)
            was_told, told = told, _story(presentation, messages)
            if len(told.done) > before:
                break
            if _worth_a_stop(message, was_told):
                stop = message
                break
            # A countdown this press started (a NoExecute taint stored) is shown before the clock runs through it.
            if (message.get("verb"), message["object"].get("kind")) == ("ack", "Node") and (
                wait := await _countdown_begun(client, began_at, eviction_timeout)
            ):
                break
        if stop is not None or wait is not None or len(told.done) > before:
            break
    payload = await _payload(client, told, messages)
    payload["delivered"] = delivered
    if stop is not None:
        payload["stop"] = {**stop, "caption": caption(stop)}
    payload["wait"] = wait
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
    """The current step's button: its write, as kubectl would make it (in step mode it waits at hop 1 for Next)."""
    presentation = await _presentation(cluster)
    lesson = lessons.BY_SLUG.get(presentation.lesson)
    step = lesson.steps[presentation.step] if lesson and presentation.step < len(lesson.steps) else None
    if lesson is None or step is None or step.action is None:
        return render(request, "web/flash.html", {"error": _("this step has no action")})
    action, manifest = step.action, lesson.manifest

    async def work() -> kubectl.Reply:
        outcome = await runner.run(cluster, action, manifest)
        lines = outcome.message.splitlines()
        return kubectl.Reply(outcome.ok, outcome.message, lines, meaning=_meaning(action, outcome))

    return await kubectl.run(request, cluster, action.kubectl(), work, held_notice=_("waiting at hop 1: press Next"))


def _meaning(action: Action, outcome: runner.Outcome) -> str:
    """What kubectl's answer to a script button means, shown beside it on a Chinese page."""
    if not outcome.ok:
        refused_by_server = outcome.message.startswith("Error from server")
        return _("refused by the API server") if refused_by_server else _("refused by kubectl")
    if action.kind in runner.NODE_ACTIONS:
        return node_meaning(runner.NODE_ACTIONS[action.kind], action.node)
    return str(DONE[action.kind])
