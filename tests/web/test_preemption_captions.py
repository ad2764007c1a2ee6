"""The flow diagram tells a preemption's delete apart: the scheduler deleting a Pod is making room."""

from django.utils import translation

from clusterviz.web.captions import caption


def test_the_schedulers_delete_of_a_pod_is_captioned_as_preemption():
    message = {"seq": 1, "from": "scheduler", "to": "apiserver", "verb": "delete", "step": None, "summary": "",
               "object": {"kind": "Pod", "namespace": "default", "name": "cache"}}
    with translation.override("en"):
        assert caption(message)["why"].startswith("Preemption: the scheduler evicts this lower-priority Pod")
    with translation.override("zh-hans"):
        assert caption(message)["why"].startswith("抢占：调度器驱逐这个优先级更低的 Pod")
