"""Fuzzing the YAML editor form: random and corrupted text with each button never fails with a 5xx,
points at the broken line of unparsable text, and a dry run never writes. Then the bugs it found."""

from __future__ import annotations

import json
import re

import pytest
import yaml
from hypothesis import event, given, settings
from hypothesis import strategies as st

from clusterviz.api.client import Client
from clusterviz.web import yaml_form
from tests.fuzz.fuzzing import CLUSTER, FUZZ, junk, mutated, objects, revision, send, to_yaml

pytestmark = pytest.mark.django_db(transaction=True)


# --- the YAML editor ------------------------------------------------------------------------------------

CORRUPTIONS = [
    ":",
    ": [",
    "\t",
    "&a",
    "*a",
    "!!python/object/apply:os.system ['true']",
    "{",
    "'",
    '"',
    "- ",
    "---",
    "--- x: 1",
    "...",
    "%YAML 1.1",
    "  ---",
    "? ",
    "|",
    "@",
    "\x00",
    "\ufeff",
    "<<: *a",
]


@st.composite
def editor_texts(draw: st.DrawFn) -> str:
    """What a student might leave in the editor: manifests, several of them, and broken ones."""
    documents = draw(st.lists(st.one_of(objects(), mutated(objects()), junk).map(to_yaml), min_size=1, max_size=3))
    separator = draw(st.sampled_from(["---\n", "---\n", "--- \n", "\n---\n", "...\n---\n", "--- # next\n"]))
    text = separator.join(documents)
    lines = text.splitlines()
    for _ in range(draw(st.integers(0, 3))):
        at = draw(st.integers(0, len(lines)))
        insert = draw(st.sampled_from(CORRUPTIONS) | st.text(max_size=10))
        if draw(st.booleans()) and at < len(lines):
            lines[at] = lines[at] + insert
        else:
            lines.insert(at, draw(st.sampled_from(["", "  ", "    "])) + insert)
    return "\n".join(lines)


def _unparsable(text: str) -> bool:
    """True when the text is not YAML at all (as opposed to YAML that is not a valid object)."""
    try:
        list(yaml.safe_load_all(text))
    except yaml.YAMLError:
        return True
    except RecursionError:
        return False
    return False


@settings(max_examples=200, **FUZZ)
@given(text=editor_texts() | st.text(max_size=200), action=st.sampled_from([*yaml_form.ACTIONS, "apply", "", "drop"]))
async def test_the_yaml_editor_never_fails_with_5xx_and_points_at_the_broken_line(async_client, text, action):
    before = await revision()
    resp = await async_client.post(f"/c/{CLUSTER}/yaml", {"action": action, "yaml": text})
    assert resp.status_code == 200, resp.content[:500]
    reply = resp.content.decode()
    event("some document went through" if 'class="flash ok"' in reply else "refused")
    if action in yaml_form.ACTIONS and _unparsable(text):
        event("not YAML")
        assert re.search(r'data-line="\d+"', reply), (text, reply)
    if 'class="flash ok"' not in reply or action == "dry-run":
        assert await revision() == before, reply


# --- regressions the fuzzing found ----------------------------------------------------------------------


async def test_editor_documents_are_split_where_yaml_splits_them(async_client):
    # A comment on the separator line, and a "---" inside a block scalar, used to crash the form (a 500).
    text = (
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: one}\n--- # the second one\n"
        "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: two}\ndata:\n  notes: |\n    above\n    ---\n    below\n"
    )
    resp = await async_client.post(f"/c/{CLUSTER}/yaml", {"action": "create", "yaml": text})
    assert resp.status_code == 200
    reply = resp.content.decode()
    assert "configmap/one created" in reply and "configmap/two created" in reply, reply
    stored = await Client(CLUSTER, "kubectl").get("configmaps", "two", "default")
    assert stored["data"]["notes"] == "above\n---\nbelow\n"


async def test_a_control_character_in_yaml_is_reported_at_its_line(async_client):
    text = "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: \x1fbad\n"
    resp = await async_client.post(f"/c/{CLUSTER}/yaml", {"action": "apply", "yaml": text})
    assert 'data-line="4"' in resp.content.decode()
    resp = await send(
        async_client, "POST", "/api/v1/namespaces/default/configmaps", {}, text.encode(), "application/yaml"
    )
    assert resp.status_code == 400
    assert "line 4, column 9" in json.loads(resp.content)["message"]


async def test_a_syntax_error_is_shown_at_its_line_even_after_a_value_json_cannot_hold(async_client):
    # The first document's number overflows (reported by field path, no line); the second is not YAML.
    text = "apiVersion: v1\nkind: ConfigMap\ndata: {big: 9223372036854775808}\n---\nkind: [Pod\n"
    resp = await async_client.post(f"/c/{CLUSTER}/yaml", {"action": "apply", "yaml": text})
    assert re.search(r'data-line="[56]"', resp.content.decode()), resp.content.decode()


async def test_a_document_whose_metadata_is_a_list_is_refused_not_a_crash(async_client):
    before = await revision()
    text = "apiVersion: v1\nkind: Node\nmetadata:\n- '{\"name\": \"jj\"}'\nspec: {}\n"
    resp = await async_client.post(f"/c/{CLUSTER}/yaml", {"action": "create", "yaml": text})
    assert resp.status_code == 200
    assert 'class="flash ok"' not in resp.content.decode()
    assert await revision() == before
