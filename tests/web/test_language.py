"""English and Simplified Chinese, switched from the page."""

import pytest

pytestmark = pytest.mark.django_db(transaction=True)


def test_the_language_switch_turns_the_main_labels_into_chinese(client):
    english = client.get("/c/demo/").content.decode()
    assert "<h2>Nodes</h2>" in english and "简体中文" in english
    client.post("/i18n/setlang/", {"language": "zh-hans", "next": "/c/demo/"})
    chinese = client.get("/c/demo/").content.decode()
    assert "<h2>节点</h2>" in chinese and "<h2>调度打分</h2>" in chinese
    assert "单步" in chinese
