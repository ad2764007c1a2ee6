"""The CustomResourceDefinition lesson played to the end: what each step says happens, through the API."""

from __future__ import annotations

import pytest

from clusterviz.api import errors
from clusterviz.lessons import BY_SLUG

from .helpers import kubectl, press, start

SLUG = "custom-resources"
CRONTABS = "/apis/stable.example.com/v1/namespaces/default/crontabs"


async def test_the_definition_serves_a_kind_that_is_defaulted_printed_and_checked(sim):
    define, create = BY_SLUG[SLUG].actions
    await start(sim, SLUG)
    outcome = await press(sim, SLUG, define)
    assert outcome.message == "customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created"
    # Only the API server serves the kind; the controller manager registers its group version.
    listed = (await kubectl().request("GET", "/apis/stable.example.com/v1")).body["resources"]
    assert [(r["name"], r.get("shortNames")) for r in listed] == [("crontabs", ["ct"])]
    api_service = await kubectl().get("apiservices", "v1.stable.example.com")
    assert api_service["status"]["conditions"][0]["reason"] == "Local"

    outcome = await press(sim, SLUG, create)
    assert outcome.message == "crontab.stable.example.com/my-new-cron-object created"
    stored = (await kubectl().request("GET", f"{CRONTABS}/my-new-cron-object")).body
    assert stored["spec"]["replicas"] == 1
    table = (await kubectl().request("GET", CRONTABS, accept="application/json;as=Table;v=v1;g=meta.k8s.io")).body
    assert [c["name"] for c in table["columnDefinitions"]] == ["Name", "Spec", "Replicas", "Age"]
    assert table["rows"][0]["cells"][:3] == ["my-new-cron-object", "* * * * */5", 1]

    # The last step's refusal of too many replicas.
    too_many = {"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": {"name": "big"},
                "spec": {"cronSpec": "* * * * *", "replicas": 11}}
    with pytest.raises(errors.StatusError) as refused:
        await kubectl().request("POST", CRONTABS, payload=too_many)
    assert refused.value.code == 422
    assert "spec.replicas in body should be less than or equal to 10" in refused.value.message
    # The strict refusal of an undeclared field is kubectl's: tests/e2e/test_custom_resources.py runs it.
