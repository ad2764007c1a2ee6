"""A class end to end in-process: a teacher creates it, students join, and each may touch only what is theirs."""

from __future__ import annotations

import json

import pytest
import yaml
from channels.routing import URLRouter
from channels.testing import WebsocketCommunicator
from django.core.management import call_command
from django.test import AsyncClient

from clusterviz.api.client import Client
from clusterviz.classroom.identity import SANDBOX_COOKIE, forget_ownership
from clusterviz.classroom.models import Classroom, Sandbox
from clusterviz.classroom.websocket import ClusterAccessWebsocketMiddleware
from clusterviz.web.routing import websocket_urlpatterns

pytestmark = pytest.mark.django_db(transaction=True)
CONFIGMAP = {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "note"}, "data": {"a": "1"}}


@pytest.fixture(autouse=True)
def fresh_ownership():
    forget_ownership()
    yield
    forget_ownership()


@pytest.fixture
async def teacher():
    from asgiref.sync import sync_to_async

    await sync_to_async(call_command)("createteacher", "alice", "--password", "s3cret-pass")
    client = AsyncClient()
    assert await client.alogin(username="alice", password="s3cret-pass")
    return client


async def new_class(teacher: AsyncClient, **extra: str) -> Classroom:
    reply = await teacher.post("/classes/", {"title": "Week 3", "slug": "week3", "preset": "node-affinity", **extra})
    assert reply.status_code == 302 and reply["Location"] == "/classes/week3/"
    return await Classroom.objects.select_related("demo").aget(slug="week3")


async def join(name: str) -> tuple[AsyncClient, str]:
    student = AsyncClient()
    form = await student.get("/join/week3/")
    assert "Your name" in form.content.decode()
    reply = await student.post("/join/week3/", {"name": name})
    assert reply.status_code == 302 and reply.cookies[SANDBOX_COOKIE].value
    cluster = reply["Location"].removeprefix("/c/").strip("/")
    return student, cluster


def post_configmap(client: AsyncClient, cluster: str):
    return client.post(
        f"/c/{cluster}/api/v1/namespaces/default/configmaps", json.dumps(CONFIGMAP), content_type="application/json"
    )


async def test_students_get_sandboxes_from_the_preset_and_touch_only_their_own(teacher):
    classroom = await new_class(teacher)
    demo = classroom.demo.name
    ann, anns = await join("Ann")
    bob, bobs = await join("Bob")
    assert anns != bobs and anns.startswith("week3-")
    # Copied from the preset: node01 carries the node-affinity lesson's labels.
    node01 = await Client(anns, "kubectl").get("nodes", "node01")
    assert node01["metadata"]["labels"]["disktype"] == "ssd"

    assert (await ann.get(f"/c/{anns}/")).status_code == 200
    assert (await post_configmap(ann, anns)).status_code == 201
    assert (await ann.get(f"/c/{demo}/api/v1/nodes")).status_code == 200  # read the teacher's demo
    refused = await post_configmap(ann, demo)
    assert refused.status_code == 403
    assert refused.json() == {
        "kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "reason": "Forbidden", "code": 403,
        "message": 'configmaps is forbidden: User "student:Ann" cannot create resource "configmaps" in API group "" '
                   'in the namespace "default"',
    }  # fmt: skip
    peek = await ann.get(f"/c/{bobs}/api/v1/namespaces/default/pods")
    assert peek.status_code == 403 and 'cannot list resource "pods"' in peek.json()["message"]
    assert (await ann.get(f"/c/{bobs}/")).status_code == 403
    assert (await ann.post(f"/clusters/{bobs}/delete")).status_code == 403
    assert await Client(demo, "kubectl").get_or_none("configmaps", "note", "default") is None

    # Coming back to the link leads to the same sandbox.
    again = await ann.get("/join/week3/")
    assert again.status_code == 302 and again["Location"] == f"/c/{anns}/"
    # The teacher may do everything, and sees both students on the class page.
    assert (await post_configmap(teacher, bobs)).status_code == 201
    page = (await teacher.get("/classes/week3/")).content.decode()
    assert "Ann" in page and "Bob" in page and f"/c/{anns}/" in page and "/join/week3/" in page


async def test_anonymous_visitors_see_only_a_public_demo(teacher):
    classroom = await new_class(teacher)
    demo = classroom.demo.name
    stranger = AsyncClient()
    assert (await stranger.get(f"/c/{demo}/api/v1/nodes")).status_code == 403
    classroom.public = True
    await classroom.asave()
    forget_ownership()
    assert (await stranger.get(f"/c/{demo}/api/v1/nodes")).status_code == 200
    assert (await post_configmap(stranger, demo)).status_code == 403
    # The single-laptop demo stays open.
    assert (await post_configmap(stranger, "demo")).status_code == 201


async def test_a_class_made_public_here_is_open_at_once_although_its_ownership_was_cached(teacher):
    classroom = await new_class(teacher)
    demo = classroom.demo.name
    stranger = AsyncClient()
    assert (await stranger.get(f"/c/{demo}/api/v1/nodes")).status_code == 403
    classroom.public = True
    await classroom.asave()
    assert (await stranger.get(f"/c/{demo}/api/v1/nodes")).status_code == 200


async def test_a_forged_cookie_or_token_gets_nothing(teacher):
    await new_class(teacher)
    _, anns = await join("Ann")
    sandbox = await Sandbox.objects.aget(cluster__name=anns)
    forger = AsyncClient()
    forger.cookies[SANDBOX_COOKIE] = f"{sandbox.pk}:forged"
    assert (await forger.get(f"/c/{anns}/api/v1/nodes")).status_code == 403
    bad_token = await AsyncClient().get(f"/c/{anns}/api/v1/nodes", headers={"Authorization": "Bearer nope"})
    assert bad_token.status_code == 401 and bad_token.json()["reason"] == "Unauthorized"


async def test_the_kubeconfig_carries_a_token_for_the_sandbox_only(teacher):
    classroom = await new_class(teacher)
    ann, anns = await join("Ann")
    _, bobs = await join("Bob")
    text = (await ann.get("/classes/week3/kubeconfig")).content.decode()
    config = yaml.safe_load(text)
    assert config["clusters"][0]["cluster"]["server"].endswith(f"/c/{anns}")
    token = config["users"][0]["user"]["token"]
    bearer = {"Authorization": f"Bearer {token}"}
    kubectl = AsyncClient()  # no cookies: only the token says who this is
    assert (await kubectl.get(f"/c/{anns}/api/v1/nodes", headers=bearer)).status_code == 200
    assert (await kubectl.get(f"/c/{bobs}/api/v1/nodes", headers=bearer)).status_code == 403
    refused = await kubectl.post(
        f"/c/{classroom.demo.name}/api/v1/namespaces/default/configmaps", json.dumps(CONFIGMAP),
        content_type="application/json", headers=bearer,
    )  # fmt: skip
    assert refused.status_code == 403


async def test_the_websocket_refuses_a_cluster_the_caller_may_not_read(teacher):
    await new_class(teacher)
    ann, anns = await join("Ann")
    _, bobs = await join("Bob")
    app = ClusterAccessWebsocketMiddleware(URLRouter(websocket_urlpatterns))
    cookie = f"{SANDBOX_COOKIE}={ann.cookies[SANDBOX_COOKIE].value}"

    def socket(cluster: str) -> WebsocketCommunicator:
        communicator = WebsocketCommunicator(app, f"/ws/c/{cluster}/", headers=[(b"cookie", cookie.encode())])
        communicator.scope["cookies"] = {SANDBOX_COOKIE: ann.cookies[SANDBOX_COOKIE].value}
        return communicator

    mine = socket(anns)
    connected, _ = await mine.connect()
    assert connected
    await mine.disconnect()
    theirs = socket(bobs)
    connected, code = await theirs.connect()
    assert not connected and code == 4403


async def test_pushing_a_preset_resets_every_sandbox(teacher):
    await new_class(teacher)
    _, anns = await join("Ann")
    await Client(anns, "kubectl").create(CONFIGMAP, "default")
    reply = await teacher.post("/classes/week3/", {"preset": "creation-flow"})
    assert "Preset loaded into 1 sandboxes." in reply.content.decode()
    assert (await Classroom.objects.aget(slug="week3")).preset == "creation-flow"
    node01 = await Client(anns, "kubectl").get("nodes", "node01")
    assert "disktype" not in node01["metadata"]["labels"]


async def test_forms_without_the_csrf_token_are_refused(teacher):
    strict = AsyncClient(enforce_csrf_checks=True)
    assert (await strict.post("/clusters/new", {"name": "sneaky", "nodes": "1"})).status_code == 403
    assert (await strict.post("/join/nowhere/", {"name": "x"})).status_code == 403
    # The API is for kubectl (bearer tokens, no cookies), so it has no CSRF check.
    assert (await post_configmap(strict, "demo")).status_code == 201


async def test_classes_need_a_teacher(teacher):
    anonymous = await AsyncClient().get("/classes/")
    assert anonymous.status_code == 302 and anonymous["Location"].startswith("/accounts/login/")
    assert (await teacher.get("/classes/")).status_code == 200


async def test_the_home_page_lists_only_what_the_visitor_may_read(teacher):
    classroom = await new_class(teacher)
    ann, anns = await join("Ann")
    _, bobs = await join("Bob")
    page = (await ann.get("/")).content.decode()
    assert f"/c/{anns}/" in page and f"/c/{classroom.demo.name}/" in page and "/c/demo/" in page
    assert f"/c/{bobs}/" not in page
    everything = (await teacher.get("/")).content.decode()
    assert f"/c/{anns}/" in everything and f"/c/{bobs}/" in everything


async def test_a_refused_dashboard_form_explains_itself_in_the_flash_area(teacher):
    classroom = await new_class(teacher)
    ann, _ = await join("Ann")
    reply = await ann.post(
        f"/c/{classroom.demo.name}/nodes/node01/action",
        {"action": "label", "value": "x=y"},
        headers={"HX-Request": "true"},
    )
    assert reply.status_code == 200
    assert (
        f"User &quot;student:Ann&quot; may not write cluster &quot;{classroom.demo.name}&quot;."
        in reply.content.decode()
    )


async def test_in_classroom_mode_only_teachers_use_clusters_outside_classes(teacher, settings):
    settings.CLUSTERVIZ = {**settings.CLUSTERVIZ, "ACCESS": "classroom"}
    stranger = AsyncClient()
    assert (await stranger.get("/c/demo/api/v1/nodes")).status_code == 403
    assert (await stranger.post("/clusters/new", {"name": "mine", "nodes": "1"})).status_code == 403
    assert (await teacher.get("/c/demo/api/v1/nodes")).status_code == 200
