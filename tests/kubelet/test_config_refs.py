"""ConfigMaps and Secrets in a Pod: env and volumes resolved by the kubelet, and upstream's errors when missing."""

from __future__ import annotations

from typing import Any

from .helpers import events_of, kubectl, pinned_pod, pod

Obj = dict[str, Any]


def with_container(name: str, **fields: Any) -> Obj:
    body = pinned_pod(name)
    body["spec"]["containers"][0].update(fields)
    return body


def secret(name: str, **string_data: str) -> Obj:
    return {"apiVersion": "v1", "kind": "Secret", "metadata": {"name": name}, "stringData": string_data}


def config_map(name: str, **data: str) -> Obj:
    return {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": name}, "data": data}


def waiting(obj: Obj) -> Obj:
    return obj["status"]["containerStatuses"][0]["state"].get("waiting", {})


def container_env(sim: Any, pod_obj: Obj) -> dict[str, str]:
    runtime = sim.components["kubelets"].runtimes["node01"]
    sandbox = runtime.sandboxes[pod_obj["metadata"]["uid"]]
    return sandbox.containers["myapp"].env


async def test_env_from_and_value_from_fill_the_containers_environment(sim):
    await kubectl().create(secret("creds", user="admin", password="s3cret"))
    await kubectl().create(config_map("settings", mode="fast", level="3"))
    await kubectl().create(
        with_container(
            "envpod",
            envFrom=[{"configMapRef": {"name": "settings"}, "prefix": "CFG_"}, {"secretRef": {"name": "creds"}}],
            env=[
                {"name": "LEVEL", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "level"}}},
                {"name": "user", "value": "overridden"},
                {"name": "PASS", "valueFrom": {"secretKeyRef": {"name": "creds", "key": "password"}}},
            ],
        )
    )
    await sim.engine.until_settled()
    running = await pod("envpod")
    assert running["status"]["phase"] == "Running"
    assert container_env(sim, running) == {
        "CFG_mode": "fast",
        "CFG_level": "3",
        "user": "overridden",
        "password": "s3cret",
        "LEVEL": "3",
        "PASS": "s3cret",
    }


async def test_a_missing_secret_stops_the_container_until_it_is_created(sim):
    await kubectl().create(with_container("waiter", envFrom=[{"secretRef": {"name": "creds"}}]))
    await sim.engine.until_settled()
    stuck = await pod("waiter")
    assert stuck["status"]["phase"] == "Pending"
    assert waiting(stuck) == {"reason": "CreateContainerConfigError", "message": 'secret "creds" not found'}
    failed = [e for e in await events_of("waiter") if e["reason"] == "Failed"]
    assert [(e["type"], e["message"]) for e in failed] == [("Warning", 'Error: secret "creds" not found')]
    assert failed[0]["involvedObject"]["fieldPath"] == "spec.containers{myapp}"

    await kubectl().create(secret("creds", token="abc"))
    await sim.engine.until_settled()
    started = await pod("waiter")
    assert started["status"]["phase"] == "Running"
    assert container_env(sim, started) == {"token": "abc"}
    assert [e["reason"] for e in await events_of("waiter")][-2:] == ["Created", "Started"]


async def test_a_missing_key_names_the_key_and_the_object(sim):
    await kubectl().create(config_map("settings", mode="fast"))
    env = [{"name": "LEVEL", "valueFrom": {"configMapKeyRef": {"name": "settings", "key": "level"}}}]
    await kubectl().create(with_container("nokey", env=env))
    await sim.engine.until_settled()
    assert waiting(await pod("nokey")) == {
        "reason": "CreateContainerConfigError",
        "message": "couldn't find key level in ConfigMap default/settings",
    }


async def test_optional_references_to_missing_objects_are_skipped(sim):
    env = [
        {"name": "A", "valueFrom": {"secretKeyRef": {"name": "absent", "key": "a", "optional": True}}},
        {"name": "B", "value": "b"},
    ]
    await kubectl().create(
        with_container("optional", env=env, envFrom=[{"configMapRef": {"name": "absent", "optional": True}}])
    )
    await sim.engine.until_settled()
    running = await pod("optional")
    assert running["status"]["phase"] == "Running"
    assert container_env(sim, running) == {"B": "b"}


async def test_a_missing_secret_volume_keeps_the_pod_creating_with_failed_mount(sim):
    body = pinned_pod("mounter")
    body["spec"]["volumes"] = [{"name": "certs", "secret": {"secretName": "site-tls"}}]
    body["spec"]["containers"][0]["volumeMounts"] = [{"name": "certs", "mountPath": "/etc/tls"}]
    await kubectl().create(body)
    await sim.engine.until_settled()
    stuck = await pod("mounter")
    assert waiting(stuck)["reason"] == "ContainerCreating"
    mounts = [e for e in await events_of("mounter") if e["reason"] == "FailedMount"]
    assert [e["message"] for e in mounts] == ['MountVolume.SetUp failed for volume "certs" : secret "site-tls" not found']

    await kubectl().create(secret("site-tls", **{"tls.crt": "c", "tls.key": "k"}))
    await sim.engine.until_settled()
    assert (await pod("mounter"))["status"]["phase"] == "Running"
