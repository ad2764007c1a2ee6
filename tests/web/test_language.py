"""English and Simplified Chinese, switched from the page."""

import asyncio
import re

import pytest
import yaml
from django.conf import settings
from django.template.loader import render_to_string
from django.utils import translation
from django.utils.html import format_html_join

from clusterviz.api.client import Client
from clusterviz.lessons import BY_SLUG, LESSONS, Lesson
from clusterviz.web.language import beside_upstream, translate_upstream
from tests.web.untranslated import untranslated_english

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_language_switch_turns_the_main_labels_into_chinese(client):
    # The requests activate their language in this thread: the tests after this one get theirs back.
    with translation.override(translation.get_language()):
        english = client.get("/c/demo/").content.decode()
        assert "<h2>Nodes</h2>" in english and "简体中文" in english
        client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/c/demo/"})
        chinese = client.get("/c/demo/").content.decode()
    assert "<h2>节点</h2>" in chinese and "<h2>调度打分</h2>" in chinese
    assert "单步" in chinese


POD = {
    "apiVersion": "v1",
    "kind": "Pod",
    "metadata": {"namespace": "default"},
    "spec": {"containers": [{"name": "web", "image": "nginx:1.27", "resources": {"requests": {"cpu": "100m"}}}]},
}


def pod(name: str, cpu: str = "100m", **spec: object) -> dict:
    containers = [{**POD["spec"]["containers"][0], "resources": {"requests": {"cpu": cpu}}}]
    return {**POD, "metadata": {**POD["metadata"], "name": name}, "spec": {"containers": containers, **spec}}


async def names_in(cluster: str) -> set[str]:
    """Everything named in the cluster: nodes, Pods, namespaces, the cluster itself."""
    kubectl = Client(cluster, "kubectl")
    names = {cluster}
    for plural in ("nodes", "pods", "namespaces"):
        names |= {item["metadata"]["name"] for item in (await kubectl.list(plural))["items"]}
    return names


@pytest.fixture
async def mixed(sim):
    """The demo cluster with a scheduled Pod, a Pod no node's labels fit and a Pod too big for any node."""
    kubectl = Client("demo", "kubectl")
    await kubectl.create(pod("placed"))
    await kubectl.create(pod("unlabelled", nodeSelector={"disktype": "ssd"}))
    await kubectl.create(pod("huge", cpu="64"))
    await sim.engine.until_settled()
    return await names_in("demo")


async def chinese_page(async_client, url: str, **post: str) -> str:
    async_client.cookies["django_language"] = "zh-hans"
    response = await (async_client.post(url, post) if post else async_client.get(url))
    assert response.status_code == 200
    return response.content.decode()


async def test_the_cluster_page_has_no_english_left_in_chinese(mixed, async_client):
    html = await chinese_page(async_client, "/c/demo/")
    assert untranslated_english(html, mixed) == []
    assert '<button name="mode" value="live"' in html and ">实时</button>" in html
    # The Pending list: translated reasons, upstream's wording beside them.
    assert "0/3 个节点可用：3 个节点 CPU 不足。" in html
    assert '<span class="upstream" lang="en">0/3 nodes are available: 3 Insufficient cpu.' in html
    assert "3 个节点不满足 Pod 的节点亲和性/nodeSelector" in html


@pytest.mark.parametrize("name", ["placed", "unlabelled", "huge"])
async def test_the_scoring_panel_has_no_english_left_in_chinese(mixed, async_client, name):
    html = await chinese_page(async_client, f"/c/demo/scoring/default/{name}")
    assert untranslated_english(html, mixed) == []


async def test_the_objects_panel_and_the_outcomes_of_actions_have_no_english_left_in_chinese(mixed, async_client):
    pages = [
        await chinese_page(async_client, f"/c/demo/objects?tab={tab}&describe=pods/default/huge")
        for tab in ("pods", "nodes", "events")
    ]
    applied = await chinese_page(
        async_client, "/c/demo/yaml", action="apply", yaml=(settings.BASE_DIR / "examples" / "myapp.yaml").read_text()
    )
    assert '<samp lang="en">deployment.apps/myapp serverside-applied</samp> 已应用' in applied
    labelled = await chinese_page(async_client, "/c/demo/nodes/node01/action", action="label", value="disktype=ssd")
    assert '<samp lang="en">node/node01 labeled</samp> 已设置标签' in labelled
    assert '<span lang="zh-hans">0/3 个节点可用：3 个节点 CPU 不足。' in pages[2]  # a FailedScheduling event
    names = mixed | await names_in("demo")
    for html in (*pages, applied, labelled):
        assert untranslated_english(html, names) == []


async def test_step_mode_s_notices_have_no_english_left_in_chinese(mixed, sim, async_client):
    sim.engine.set_mode("step")
    queued = await chinese_page(async_client, "/c/demo/nodes/node01/action", action="label", value="disktype=ssd")
    assert "停在第 1 步：请按“下一个编号步骤”" in queued
    page = await chinese_page(async_client, "/c/demo/")
    assert "停在第 1 步：修补 Node/node01" in page
    token = re.search(r'/c/demo/console/result/([\w-]+)"', queued)
    assert token is not None
    outcome = asyncio.ensure_future(chinese_page(async_client, f"/c/demo/console/result/{token[1]}"))
    while not outcome.done():
        await sim.engine.step()
        await asyncio.sleep(0.01)  # wall-clock: the long poll reads the store in a thread
    assert '<samp lang="en">node/node01 labeled</samp> 已设置标签' in outcome.result()
    # Once nothing waits on the bus, the clock names the next timer.
    sim.engine.set_mode("fast-forward")
    await sim.engine.until_settled()
    sim.engine.set_mode("paused")
    paused = await chinese_page(async_client, "/c/demo/")
    assert "下一个事件：" in paused
    for html in (queued, page, outcome.result(), paused):
        assert untranslated_english(html, mixed) == []


def test_the_check_finds_english_and_spares_what_may_stay_english():
    html = (
        '<p title="Step through">单步 Insufficient cpu</p><p lang="en">Insufficient cpu</p>'
        "<code>kubectl get pods</code><p>Pod myapp 在 node01 上 Running · NodeResourcesFit · CPU</p>"
        '<div data-text-winner="winner" data-label-scheduler="调度器"></div>'
        "<p>运行 kubectl get pods -o wide 查看，kubectl sends requests</p>"
    )
    assert untranslated_english(html, {"myapp"}) == [
        "'Step through': Step, through",
        "'单步 Insufficient cpu': Insufficient, cpu",
        "'winner': winner",
        "'运行 kubectl get pods -o wide 查看，kubectl sends requests': sends, requests",
    ]


# Where a lesson's objects carry the names its text may use: object, container and volume names, label keys
# and values, topology keys, images.
NAMED = frozenset({"name", "pdName", "topologyKey", "key", "image"})
LABELLED = frozenset({"labels", "nodeSelector", "matchLabels"})


def names_of(value: object) -> set[str]:
    """The names in a manifest (parsed YAML), each with its words (``mysql-disk``: mysql, disk)."""
    names: set[str] = set()
    if isinstance(value, dict):
        for key, item in value.items():
            if key in LABELLED and isinstance(item, dict):
                names |= {str(k) for k in item} | {str(v) for v in item.values()}
            elif key in NAMED and isinstance(item, str):
                names.add(item)
            elif key in ("values", "shortNames") and isinstance(item, list):
                names |= {str(v) for v in item}
            else:
                names |= names_of(item)
    elif isinstance(value, list):
        for item in value:
            names |= names_of(item)
    return names | {word for name in names for word in re.split(r"[-./:=]", name)}


def lesson_names(lesson: Lesson) -> set[str]:
    """Everything a lesson's cluster names: its manifests' objects, its filler Pods, its nodes' labels and taints."""
    nodes = [{"name": n.name, "labels": dict(n.labels), "taints": [dict(t) for t in n.taints]} for n in lesson.nodes]
    # Files a step applies besides the lesson's own manifest.
    files = [doc for step in lesson.steps if step.action and step.action.manifest
             for doc in yaml.safe_load_all(step.action.manifest)]
    # What a step's kubectl command names (``cronjob/tick``, the Job ``tick-now`` it makes).
    typed = {part for step in lesson.steps if step.action for part in (step.action.target, step.action.value) if part}
    typed |= {word for name in typed for word in re.split(r"[-./:=]", name)}
    return names_of([*yaml.safe_load_all(lesson.manifest), *files, *lesson.fillers, *nodes]) | typed


@pytest.mark.parametrize("lesson", [pytest.param(lesson, id=lesson.slug) for lesson in LESSONS])
def test_every_lesson_is_told_in_the_glossary_s_chinese(lesson):
    assert untranslated_english(lesson_in_chinese(lesson), lesson_names(lesson)) == []


def lesson_in_chinese(lesson: Lesson) -> str:
    """A lesson's Chinese title, steps, commands, questions and buttons, as the cluster page shows them."""
    steps = [
        {"text": step.text_zh, "question": step.question_zh, "kubectl": step.action.kubectl() if step.action else ""}
        for step in lesson.steps
    ]
    buttons = format_html_join("", "<button>{}</button>", ((action.label_zh,) for action in lesson.actions))
    with translation.override("zh-hans"):
        return render_to_string("web/preset.html", {"title": lesson.title_zh, "steps": steps}) + buttons


@pytest.mark.parametrize(
    ("slug", "quoted"),
    [
        ("creation-flow", "现在它先过滤节点（预选），再给节点打分（优选），选出一个。"),
        ("node-name", "它的 spec.nodeName 已经设置，所以不经过调度器。"),
    ],
)
async def test_the_presenter_view_and_its_story_have_no_english_left_in_chinese(sim, async_client, slug, quoted):
    lesson = BY_SLUG[slug]
    html = await chinese_page(async_client, f"/c/demo/present/?lesson={slug}")
    names = await names_in("demo") | lesson_names(lesson)
    # The lesson's own texts are checked against the glossary above; nothing else on the page is English,
    # the texts present.js shows (data-text-*) and the map's labels (data-label-*) included.
    assert set(untranslated_english(html, names)) <= set(untranslated_english(lesson_in_chinese(lesson), names))
    assert 'data-text-predict="哪个节点会胜出？先猜一猜，再按“下一步”。"' in html
    assert 'data-label-controller-manager="控制器管理器"' in html
    started = (await async_client.post("/c/demo/present/action")).content.decode()
    assert "停在第 1 步：请按“下一步”。" in started and untranslated_english(started) == []
    # Next until the Pod's story is told, then on: past its end Next stops at each change a component asks for
    # (the other Pods' hops), moving the clock on when nothing waits on the bus. Each stop has its caption.
    captions, after = [], 0
    for _press in range(200):
        moved = (await async_client.post("/c/demo/present/next")).json()
        captions += [moved["stop"]["caption"]] if "stop" in moved else []
        after += moved["progress"] == moved["last"]
        if after == 6:
            break
    assert after == 6 and captions
    # The button's write has long completed: kubectl's answer, with its meaning beside it.
    poll = re.search(r'hx-get="([^"]+)"', started)
    assert poll is not None
    answered = await chinese_page(async_client, poll[1])
    assert '<samp lang="en">deployment.apps/myapp created</samp> 已应用' in answered
    assert untranslated_english(answered) == []
    told = (await async_client.get("/c/demo/present/story.json")).json()
    assert told["progress"] == 13
    captions += [message["caption"] for beat in told["beats"] for message in beat["messages"]]
    shown = format_html_join("", "<p>{}</p><p>{}</p>", ((c["what"], c["why"]) for c in captions))
    assert untranslated_english(shown, names | {told["pod"]}) == []
    assert quoted in shown


async def test_the_home_page_has_no_english_left_in_chinese(async_client):
    html = await chinese_page(async_client, "/")
    created = await chinese_page(async_client, "/clusters/new", name="lesson1", nodes="2")
    assert untranslated_english(html + created, await names_in("demo") | {"lesson1"}) == []


class TestTranslateUpstream:
    def test_a_counted_composite_message_with_preemption_is_translated_part_by_part(self):
        message = (
            "0/4 nodes are available: 1 Insufficient cpu, 1 Insufficient nvidia.com/gpu, 2 node(s) had untolerated "
            "taint(s). no new claims to deallocate, preemption: 0/4 nodes are available: 2 No preemption victims "
            "found for incoming pod, 2 Preemption is not helpful for scheduling."
        )
        with translation.override("zh-hans"):
            assert translate_upstream(message) == (
                "0/4 个节点可用：1 个节点 CPU 不足，1 个节点 nvidia.com/gpu 不足，2 个节点有 Pod 不能容忍的污点。"
                "没有可释放的新资源申领（ResourceClaim），抢占：0/4 个节点可用：2 个节点找不到可为该 Pod 抢占的低优先级 Pod，"
                "2 个节点抢占也无助于调度。"
            )

    def test_one_node_s_reasons_read_without_a_count(self):
        with translation.override("zh-hans"):
            assert translate_upstream("Insufficient cpu, Insufficient memory") == "CPU 不足，内存不足"
            assert translate_upstream("node(s) didn't satisfy plugin(s) [NodeAffinity NodePorts]") == (
                "不满足插件 [NodeAffinity NodePorts]"
            )
            assert (
                translate_upstream(
                    "0/3 nodes are available: pod affinity terms conflict. preemption: not eligible due to "
                    "preemptionPolicy=Never."
                )
                == "0/3 个节点可用：Pod 的节点亲和性条件相互冲突。抢占：不能抢占：preemptionPolicy=Never。"
            )

    def test_english_pages_and_unknown_messages_keep_upstream_s_words(self):
        message = "0/3 nodes are available: 3 Insufficient cpu."
        with translation.override("en"):
            assert translate_upstream(message) == message
            assert beside_upstream(message) == message
        with translation.override("zh-hans"):
            assert translate_upstream("parsing pod: bad selector") == "parsing pod: bad selector"
            assert beside_upstream(message) == (
                '<span lang="zh-hans">0/3 个节点可用：3 个节点 CPU 不足。</span> '
                '<span class="upstream" lang="en">0/3 nodes are available: 3 Insufficient cpu.</span>'
            )
