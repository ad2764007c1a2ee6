import copy
import json

import pytest

from clusterviz.apimachinery.patch import (
    PatchError,
    PatchMeta,
    default_patch_meta,
    strategic_merge_patch,
)


def deployment(containers=None, **spec):
    containers = containers or [
        {
            "name": "web",
            "image": "nginx:1.25",
            "ports": [{"containerPort": 80, "protocol": "TCP"}],
            "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
            "volumeMounts": [{"name": "data", "mountPath": "/data"}, {"name": "cfg", "mountPath": "/etc/cfg"}],
        }
    ]
    return {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "myapp", "namespace": "default", "labels": {"app": "myapp"}},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "myapp"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": "25%"}},
            "template": {
                "metadata": {"labels": {"app": "myapp"}},
                "spec": {"containers": containers, **spec},
            },
        },
    }


def pod_spec(result):
    return result["spec"]["template"]["spec"]


def names(items, key="name"):
    return [item[key] for item in items]


def assert_no_directives(value):
    if isinstance(value, dict):
        for key, child in value.items():
            assert not key.startswith("$"), f"directive {key} left in result"
            assert_no_directives(child)
    elif isinstance(value, list):
        for child in value:
            assert_no_directives(child)


# --- the real kubectl apply body ------------------------------------------------------------


KUBECTL_APPLY_BODY = {
    "metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": '{"kind":"Deployment"}\n'}},
    "spec": {
        "replicas": 3,
        "template": {
            "spec": {
                "$setElementOrder/containers": [{"name": "web"}],
                "containers": [{"image": "nginx:1.26", "name": "web"}],
            }
        },
    },
}


def test_kubectl_apply_image_change_keeps_container_ports():
    result = strategic_merge_patch(deployment(), KUBECTL_APPLY_BODY)
    (container,) = pod_spec(result)["containers"]
    assert container["image"] == "nginx:1.26"
    assert container["ports"] == [{"containerPort": 80, "protocol": "TCP"}]
    assert container["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}]


def test_kubectl_apply_body_updates_replicas_and_annotation():
    result = strategic_merge_patch(deployment(), KUBECTL_APPLY_BODY)
    assert result["spec"]["replicas"] == 3
    assert result["metadata"]["annotations"] == {
        "kubectl.kubernetes.io/last-applied-configuration": '{"kind":"Deployment"}\n'
    }
    assert result["metadata"]["labels"] == {"app": "myapp"}
    assert result["spec"]["strategy"]["type"] == "RollingUpdate"


def test_kubectl_apply_body_leaves_no_directive_keys():
    assert_no_directives(strategic_merge_patch(deployment(), KUBECTL_APPLY_BODY))


def test_kubectl_apply_body_as_received_on_the_wire():
    body = json.loads(
        '{"metadata":{"annotations":{"kubectl.kubernetes.io/last-applied-configuration":"{}\\n"}},'
        '"spec":{"replicas":3,"template":{"spec":{"$setElementOrder/containers":[{"name":"web"}],'
        '"containers":[{"image":"nginx:1.26","name":"web"}]}}}}'
    )
    result = strategic_merge_patch(deployment(), body)
    assert pod_spec(result)["containers"][0]["ports"] == [{"containerPort": 80, "protocol": "TCP"}]


def test_merge_patch_semantics_would_have_lost_the_ports():
    # Guard for the test above: a plain JSON merge patch replaces the list.
    from clusterviz.apimachinery.patch import merge_patch

    result = merge_patch(deployment(), KUBECTL_APPLY_BODY)
    assert "ports" not in pod_spec(result)["containers"][0]


def test_inputs_are_not_mutated():
    target = deployment()
    patch = copy.deepcopy(KUBECTL_APPLY_BODY)
    target_before = copy.deepcopy(target)
    patch_before = copy.deepcopy(patch)
    strategic_merge_patch(target, patch)
    assert target == target_before
    assert patch == patch_before


def test_result_does_not_alias_inputs():
    target = deployment()
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "side", "args": ["a"]}]}}}}
    result = strategic_merge_patch(target, patch)
    pod_spec(result)["containers"][0]["args"].append("b")
    pod_spec(result)["containers"][1]["ports"].append({"containerPort": 1})
    assert patch["spec"]["template"]["spec"]["containers"][0]["args"] == ["a"]
    assert pod_spec(target)["containers"][0]["ports"] == [{"containerPort": 80, "protocol": "TCP"}]


# --- maps ------------------------------------------------------------------------------------------


def test_maps_merge_recursively():
    result = strategic_merge_patch({"a": {"b": 1, "c": {"d": 2}}}, {"a": {"c": {"e": 3}}})
    assert result == {"a": {"b": 1, "c": {"d": 2, "e": 3}}}


def test_null_deletes_a_key():
    result = strategic_merge_patch(deployment(), {"metadata": {"labels": None}, "spec": {"strategy": None}})
    assert "labels" not in result["metadata"]
    assert "strategy" not in result["spec"]


def test_null_for_missing_key_is_ignored():
    assert strategic_merge_patch({"a": 1}, {"b": None}) == {"a": 1}


def test_scalar_replaces_map_when_types_differ():
    assert strategic_merge_patch({"a": {"b": 1}}, {"a": "x"}) == {"a": "x"}


def test_new_map_is_added_without_its_nulls():
    assert strategic_merge_patch({}, {"a": {"b": None, "c": 1}}) == {"a": {"c": 1}}


def test_kubectl_rollout_restart_adds_template_annotation():
    patch = {"spec": {"template": {"metadata": {"annotations": {"kubectl.kubernetes.io/restartedAt": "now"}}}}}
    result = strategic_merge_patch(deployment(), patch)
    assert result["spec"]["template"]["metadata"] == {
        "labels": {"app": "myapp"},
        "annotations": {"kubectl.kubernetes.io/restartedAt": "now"},
    }


def test_kubectl_cordon_sets_unschedulable():
    node = {"metadata": {"name": "node01"}, "spec": {"podCIDR": "10.244.0.0/24"}}
    result = strategic_merge_patch(node, {"spec": {"unschedulable": True}})
    assert result["spec"] == {"podCIDR": "10.244.0.0/24", "unschedulable": True}


def test_patch_replace_directive_replaces_a_map():
    result = strategic_merge_patch(deployment(), {"metadata": {"labels": {"$patch": "replace", "tier": "web"}}})
    assert result["metadata"]["labels"] == {"tier": "web"}


def test_patch_delete_directive_deletes_a_map():
    result = strategic_merge_patch(deployment(), {"spec": {"strategy": {"$patch": "delete"}}})
    assert "strategy" not in result["spec"]


def test_patch_delete_directive_on_missing_map_adds_nothing():
    assert strategic_merge_patch({"a": 1}, {"b": {"$patch": "delete"}}) == {"a": 1}


def test_patch_delete_directive_at_root_empties_document():
    assert strategic_merge_patch({"a": 1}, {"$patch": "delete"}) == {}


def test_unknown_map_directive_is_rejected():
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch({"a": {}}, {"a": {"$patch": "shred", "x": 1}})
    assert str(excinfo.value) == "unknown patch type: shred in map: map[$patch:shred x:1]"


def test_unknown_dollar_key_is_rejected_rather_than_stored():
    with pytest.raises(PatchError):
        strategic_merge_patch({}, {"spec": {"$frobnicate": 1}})


# --- $retainKeys -------------------------------------------------------------------------------------


def test_retain_keys_clears_fields_not_listed():
    # kubectl apply switching a Deployment from RollingUpdate to Recreate.
    patch = {"spec": {"strategy": {"$retainKeys": ["type"], "type": "Recreate", "rollingUpdate": None}}}
    result = strategic_merge_patch(deployment(), patch)
    assert result["spec"]["strategy"] == {"type": "Recreate"}


def test_retain_keys_keeps_listed_fields_from_the_live_object():
    target = {"volume": {"name": "v", "emptyDir": {}, "hostPath": {"path": "/x"}}}
    patch = {"volume": {"$retainKeys": ["name", "emptyDir"], "emptyDir": {"medium": "Memory"}}}
    assert strategic_merge_patch(target, patch) == {"volume": {"name": "v", "emptyDir": {"medium": "Memory"}}}


def test_retain_keys_rejects_patch_fields_missing_from_the_list():
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch({"s": {}}, {"s": {"$retainKeys": ["type"], "other": 1}})
    assert str(excinfo.value) == "invalid patch format of retainKeys"


def test_retain_keys_must_be_a_list():
    with pytest.raises(PatchError):
        strategic_merge_patch({"s": {}}, {"s": {"$retainKeys": "type"}})


# --- merging lists of maps ---------------------------------------------------------------------


def test_containers_merge_by_name():
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "web", "image": "nginx:1.27"}]}}}}
    result = strategic_merge_patch(deployment(), patch)
    (container,) = pod_spec(result)["containers"]
    assert container["image"] == "nginx:1.27"
    assert container["volumeMounts"][0]["mountPath"] == "/data"


def test_new_container_without_set_element_order_goes_first_like_upstream():
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "sidecar", "image": "busybox"}]}}}}
    result = strategic_merge_patch(deployment(), patch)
    assert names(pod_spec(result)["containers"]) == ["sidecar", "web"]


def test_set_element_order_puts_new_container_where_listed():
    patch = {
        "spec": {
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": "web"}, {"name": "sidecar"}],
                    "containers": [{"name": "sidecar", "image": "busybox"}],
                }
            }
        }
    }
    result = strategic_merge_patch(deployment(), patch)
    assert names(pod_spec(result)["containers"]) == ["web", "sidecar"]


def test_set_element_order_alone_reorders_the_live_list():
    target = deployment([{"name": "a"}, {"name": "b"}, {"name": "c"}])
    patch = {
        "spec": {"template": {"spec": {"$setElementOrder/containers": [{"name": "c"}, {"name": "a"}, {"name": "b"}]}}}
    }
    assert names(pod_spec(strategic_merge_patch(target, patch))["containers"]) == ["c", "a", "b"]


def test_set_element_order_interleaves_unlisted_live_items_by_live_position():
    # "b" (e.g. an injected sidecar) is not in the order list; it stays in front of
    # "c", which followed it in the live list, as upstream's mergeSortedSlice does.
    target = deployment([{"name": "a"}, {"name": "b"}, {"name": "c"}])
    patch = {"spec": {"template": {"spec": {"$setElementOrder/containers": [{"name": "c"}, {"name": "a"}]}}}}
    assert names(pod_spec(strategic_merge_patch(target, patch))["containers"]) == ["b", "c", "a"]


def test_set_element_order_puts_unlisted_live_item_after_listed_ones_that_preceded_it():
    target = deployment([{"name": "a"}, {"name": "b"}, {"name": "c"}])
    patch = {"spec": {"template": {"spec": {"$setElementOrder/containers": [{"name": "b"}, {"name": "a"}]}}}}
    assert names(pod_spec(strategic_merge_patch(target, patch))["containers"]) == ["b", "a", "c"]


def test_updating_a_middle_element_keeps_live_order():
    target = deployment([{"name": "a"}, {"name": "b", "image": "x"}, {"name": "c"}])
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "b", "image": "y"}]}}}}
    containers = pod_spec(strategic_merge_patch(target, patch))["containers"]
    assert names(containers) == ["a", "b", "c"]
    assert containers[1] == {"name": "b", "image": "y"}


def test_patch_order_wins_over_live_order_for_patched_items():
    target = deployment([{"name": "a"}, {"name": "b"}])
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "b", "x": 1}, {"name": "a", "x": 1}]}}}}
    assert names(pod_spec(strategic_merge_patch(target, patch))["containers"]) == ["b", "a"]


def test_set_element_order_that_contradicts_patch_order_is_rejected():
    target = deployment([{"name": "a"}, {"name": "b"}])
    patch = {
        "spec": {
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": "a"}, {"name": "b"}],
                    "containers": [{"name": "b", "image": "x"}, {"name": "a", "image": "y"}],
                }
            }
        }
    }
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch(target, patch)
    assert str(excinfo.value) == (
        "The order in patch list:\n[map[image:x name:b] map[image:y name:a]]\n doesn't match $setElementOrder "
        "list:\n[map[name:a] map[name:b]]\n"
    )


def test_set_element_order_entry_without_merge_key_is_rejected():
    patch = {"spec": {"template": {"spec": {"$setElementOrder/containers": [{"image": "x"}]}}}}
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch(deployment(), patch)
    assert str(excinfo.value) == "map: map[image:x] does not contain declared merge key: name"


def test_set_element_order_must_be_a_list():
    patch = {"spec": {"template": {"spec": {"$setElementOrder/containers": "web"}}}}
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch(deployment(), patch)
    assert str(excinfo.value) == "expected a []interface {}, but received a string"


def test_delete_directive_removes_list_element_by_key():
    target = deployment([{"name": "a"}, {"name": "b"}, {"name": "c"}])
    patch = {"spec": {"template": {"spec": {"containers": [{"$patch": "delete", "name": "b"}]}}}}
    assert names(pod_spec(strategic_merge_patch(target, patch))["containers"]) == ["a", "c"]


def test_delete_directive_without_merge_key_is_rejected():
    patch = {"spec": {"template": {"spec": {"containers": [{"$patch": "delete", "image": "x"}]}}}}
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch(deployment(), patch)
    assert str(excinfo.value) == "map: map[$patch:delete image:x] does not contain declared merge key: name"


def test_kubectl_apply_removing_a_port_deletes_only_that_port():
    target = deployment(
        [{"name": "web", "image": "nginx", "ports": [{"containerPort": 80}, {"containerPort": 8080, "name": "alt"}]}]
    )
    patch = {
        "spec": {
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": "web"}],
                    "containers": [
                        {
                            "$setElementOrder/ports": [{"containerPort": 80}],
                            "name": "web",
                            "ports": [{"$patch": "delete", "containerPort": 8080}],
                        }
                    ],
                }
            }
        }
    }
    result = strategic_merge_patch(target, patch)
    assert pod_spec(result)["containers"] == [{"name": "web", "image": "nginx", "ports": [{"containerPort": 80}]}]


def test_replace_directive_in_list_replaces_whole_list():
    target = deployment([{"name": "a", "image": "x"}, {"name": "b"}])
    patch = {"spec": {"template": {"spec": {"containers": [{"$patch": "replace"}, {"name": "c", "image": "z"}]}}}}
    assert pod_spec(strategic_merge_patch(target, patch))["containers"] == [{"name": "c", "image": "z"}]


def test_merge_directive_in_list_is_rejected():
    patch = {"spec": {"template": {"spec": {"containers": [{"$patch": "merge", "name": "a"}]}}}}
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch(deployment(), patch)
    assert str(excinfo.value) == "merging lists cannot yet be specified in the patch"


def test_patch_list_element_without_merge_key_is_rejected():
    patch = {"spec": {"template": {"spec": {"containers": [{"image": "nginx"}]}}}}
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch(deployment(), patch)
    assert str(excinfo.value) == "map: map[image:nginx] does not contain declared merge key: name"


def test_mixed_element_types_in_merge_list_are_rejected():
    patch = {"spec": {"template": {"spec": {"containers": ["web"]}}}}
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch(deployment(), patch)
    assert str(excinfo.value).startswith("list element types are not identical")


def test_env_merges_by_name_and_null_removes_a_field_inside_element():
    patch = {
        "spec": {
            "template": {
                "spec": {"containers": [{"name": "web", "env": [{"name": "B", "value": None, "valueFrom": {"x": 1}}]}]}
            }
        }
    }
    env = pod_spec(strategic_merge_patch(deployment(), patch))["containers"][0]["env"]
    assert env == [{"name": "A", "value": "1"}, {"name": "B", "valueFrom": {"x": 1}}]


def test_volume_mounts_merge_by_mount_path():
    patch = {
        "spec": {
            "template": {
                "spec": {"containers": [{"name": "web", "volumeMounts": [{"mountPath": "/data", "readOnly": True}]}]}
            }
        }
    }
    mounts = pod_spec(strategic_merge_patch(deployment(), patch))["containers"][0]["volumeMounts"]
    assert mounts == [
        {"name": "data", "mountPath": "/data", "readOnly": True},
        {"name": "cfg", "mountPath": "/etc/cfg"},
    ]


def test_container_ports_merge_by_container_port():
    patch = {
        "spec": {
            "template": {"spec": {"containers": [{"name": "web", "ports": [{"containerPort": 80, "name": "http"}]}]}}
        }
    }
    ports = pod_spec(strategic_merge_patch(deployment(), patch))["containers"][0]["ports"]
    assert ports == [{"containerPort": 80, "protocol": "TCP", "name": "http"}]


def test_init_container_ports_also_merge_by_container_port():
    target = deployment(initContainers=[{"name": "init", "ports": [{"containerPort": 1, "name": "a"}]}])
    patch = {
        "spec": {
            "template": {"spec": {"initContainers": [{"name": "init", "ports": [{"containerPort": 1, "hostPort": 9}]}]}}
        }
    }
    ports = pod_spec(strategic_merge_patch(target, patch))["initContainers"][0]["ports"]
    assert ports == [{"containerPort": 1, "name": "a", "hostPort": 9}]


def test_service_ports_merge_by_port_not_container_port():
    service = {
        "kind": "Service",
        "spec": {
            "selector": {"app": "web"},
            "ports": [{"port": 80, "targetPort": 80, "protocol": "TCP"}, {"port": 443, "targetPort": 8443}],
        },
    }
    patch = {
        "spec": {"$setElementOrder/ports": [{"port": 80}, {"port": 443}], "ports": [{"port": 80, "targetPort": 8080}]}
    }
    result = strategic_merge_patch(service, patch)
    assert result["spec"]["ports"] == [
        {"port": 80, "targetPort": 8080, "protocol": "TCP"},
        {"port": 443, "targetPort": 8443},
    ]


def test_pod_volumes_merge_by_name():
    target = deployment(volumes=[{"name": "data", "emptyDir": {}}, {"name": "cfg", "configMap": {"name": "c"}}])
    patch = {"spec": {"template": {"spec": {"volumes": [{"name": "cfg", "configMap": {"name": "c2"}}]}}}}
    volumes = pod_spec(strategic_merge_patch(target, patch))["volumes"]
    assert volumes == [{"name": "data", "emptyDir": {}}, {"name": "cfg", "configMap": {"name": "c2"}}]


def test_host_aliases_merge_by_ip():
    target = deployment(hostAliases=[{"ip": "10.0.0.1", "hostnames": ["a"]}])
    patch = {"spec": {"template": {"spec": {"hostAliases": [{"ip": "10.0.0.2", "hostnames": ["b"]}]}}}}
    aliases = pod_spec(strategic_merge_patch(target, patch))["hostAliases"]
    assert sorted(a["ip"] for a in aliases) == ["10.0.0.1", "10.0.0.2"]


def test_tolerations_are_replaced_because_upstream_has_no_merge_key():
    target = deployment(tolerations=[{"key": "a", "operator": "Exists"}])
    patch = {"spec": {"template": {"spec": {"tolerations": [{"key": "b", "operator": "Exists"}]}}}}
    assert pod_spec(strategic_merge_patch(target, patch))["tolerations"] == [{"key": "b", "operator": "Exists"}]


def test_untagged_lists_such_as_args_are_replaced():
    target = deployment([{"name": "web", "args": ["a", "b"]}])
    patch = {"spec": {"template": {"spec": {"containers": [{"name": "web", "args": ["c"]}]}}}}
    assert pod_spec(strategic_merge_patch(target, patch))["containers"][0]["args"] == ["c"]


def test_replaced_list_drops_directive_elements_and_cleans_nested_nulls():
    target = deployment(tolerations=[{"key": "a"}])
    patch = {"spec": {"template": {"spec": {"tolerations": [{"$patch": "replace"}, {"key": "b", "value": None}]}}}}
    assert pod_spec(strategic_merge_patch(target, patch))["tolerations"] == [{"key": "b"}]


def test_node_conditions_merge_by_type():
    node = {
        "status": {
            "conditions": [
                {"type": "MemoryPressure", "status": "False"},
                {"type": "Ready", "status": "True", "reason": "KubeletReady"},
            ]
        }
    }
    patch = {"status": {"conditions": [{"type": "Ready", "status": "False", "reason": "KubeletNotReady"}]}}
    assert strategic_merge_patch(node, patch)["status"]["conditions"] == [
        {"type": "MemoryPressure", "status": "False"},
        {"type": "Ready", "status": "False", "reason": "KubeletNotReady"},
    ]


def test_list_missing_from_live_object_is_taken_from_patch_without_directives():
    target = deployment([{"name": "web"}])
    patch = {
        "spec": {
            "template": {
                "spec": {
                    "$setElementOrder/containers": [{"name": "web"}],
                    "containers": [
                        {
                            "name": "web",
                            "$setElementOrder/ports": [{"containerPort": 80}],
                            "ports": [{"containerPort": 80}],
                        }
                    ],
                }
            }
        }
    }
    result = strategic_merge_patch(target, patch)
    assert pod_spec(result)["containers"] == [{"name": "web", "ports": [{"containerPort": 80}]}]
    assert_no_directives(result)


def test_new_merge_list_drops_delete_directive_elements():
    result = strategic_merge_patch(
        {"spec": {}}, {"spec": {"containers": [{"name": "a"}, {"$patch": "delete", "name": "b"}]}}
    )
    assert result == {"spec": {"containers": [{"name": "a"}]}}


# --- lists of scalars -------------------------------------------------------------------------------


def test_finalizers_merge_as_a_set():
    target = {"metadata": {"finalizers": ["a", "b"]}}
    result = strategic_merge_patch(target, {"metadata": {"finalizers": ["b", "c"]}})
    assert result["metadata"]["finalizers"] == ["a", "b", "c"]


def test_delete_from_primitive_list_removes_values():
    target = {"metadata": {"finalizers": ["a", "b", "c"]}}
    result = strategic_merge_patch(target, {"metadata": {"$deleteFromPrimitiveList/finalizers": ["b"]}})
    assert result["metadata"] == {"finalizers": ["a", "c"]}


def test_delete_from_primitive_list_on_missing_list_does_nothing():
    result = strategic_merge_patch({"metadata": {}}, {"metadata": {"$deleteFromPrimitiveList/finalizers": ["b"]}})
    assert result == {"metadata": {}}


def test_delete_from_primitive_list_rejects_objects():
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch(
            {"metadata": {"finalizers": ["a"]}}, {"metadata": {"$deleteFromPrimitiveList/finalizers": [{"a": 1}]}}
        )
    assert str(excinfo.value) == "invalid patch format of primitive list"


def test_set_element_order_orders_primitive_merge_lists():
    target = {"metadata": {"finalizers": ["a", "b"]}}
    patch = {"metadata": {"$setElementOrder/finalizers": ["c", "b", "a"], "finalizers": ["c"]}}
    assert strategic_merge_patch(target, patch)["metadata"]["finalizers"] == ["c", "b", "a"]


def test_set_element_order_on_replaced_list_is_just_dropped():
    target = deployment([{"name": "web", "args": ["a"]}])
    patch = {
        "spec": {"template": {"spec": {"containers": [{"name": "web", "$setElementOrder/args": ["x"], "args": ["x"]}]}}}
    }
    result = strategic_merge_patch(target, patch)
    assert pod_spec(result)["containers"] == [{"name": "web", "args": ["x"]}]


# --- document-level errors ------------------------------------------------------------------------------


def test_non_object_patch_is_rejected():
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch({}, ["x"])
    assert str(excinfo.value) == "invalid JSON document"


def test_none_target_is_treated_as_empty_object():
    assert strategic_merge_patch(None, {"a": 1}) == {"a": 1}


# --- the path-based lookup -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "meta"),
    [
        (("spec", "containers"), PatchMeta("merge", "name")),
        (("spec", "template", "spec", "initContainers"), PatchMeta("merge", "name")),
        (("spec", "template", "spec", "containers", "ports"), PatchMeta("merge", "containerPort")),
        (("spec", "containers", "env"), PatchMeta("merge", "name")),
        (("spec", "ports"), PatchMeta("merge", "port")),
        (("status", "conditions"), PatchMeta("merge", "type")),
        (("metadata", "finalizers"), PatchMeta("merge", None)),
        (("spec", "template", "metadata", "ownerReferences"), PatchMeta("merge", "uid")),
        (("spec", "topologySpreadConstraints"), PatchMeta("merge", "topologyKey")),
    ],
)
def test_default_lookup_knows_upstream_merge_keys(path, meta):
    assert default_patch_meta(path) == meta


@pytest.mark.parametrize(
    "path",
    [
        ("spec", "template", "spec", "tolerations"),
        ("spec", "containers", "args"),
        ("subsets", "ports"),
        ("spec", "template", "spec", "ports"),
        ("spec", "selector", "matchExpressions"),
    ],
)
def test_default_lookup_replaces_untagged_lists(path):
    assert default_patch_meta(path) is None


def test_custom_lookup_can_make_a_list_merge():
    def lookup(path):
        return PatchMeta("merge", "id") if path == ("items",) else None

    result = strategic_merge_patch(
        {"items": [{"id": 1, "v": "a"}, {"id": 2, "v": "b"}]}, {"items": [{"id": 2, "v": "c"}]}, lookup=lookup
    )
    assert result == {"items": [{"id": 1, "v": "a"}, {"id": 2, "v": "c"}]}
    assert strategic_merge_patch({"items": [{"id": 1}]}, {"items": [{"id": 2}]}) == {"items": [{"id": 2}]}


# --- more upstream-shaped cases -----------------------------------------------------------------------------


def test_kubectl_set_image_body_changes_only_the_image():
    patch = {"spec": {"template": {"spec": {"containers": [{"image": "nginx:1.27", "name": "web"}]}}}}
    before = pod_spec(deployment())["containers"][0]
    after = pod_spec(strategic_merge_patch(deployment(), patch))["containers"][0]
    assert after == {**before, "image": "nginx:1.27"}


def test_owner_references_merge_by_uid():
    target = {"metadata": {"ownerReferences": [{"uid": "1", "name": "rs-a"}, {"uid": "2", "name": "rs-b"}]}}
    patch = {"metadata": {"ownerReferences": [{"uid": "2", "controller": True}]}}
    refs = strategic_merge_patch(target, patch)["metadata"]["ownerReferences"]
    assert refs == [{"uid": "1", "name": "rs-a"}, {"uid": "2", "name": "rs-b", "controller": True}]


def test_node_addresses_merge_by_type():
    node = {
        "status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.1"}, {"type": "Hostname", "address": "n"}]}
    }
    patch = {"status": {"addresses": [{"type": "InternalIP", "address": "10.0.0.9"}]}}
    assert strategic_merge_patch(node, patch)["status"]["addresses"] == [
        {"type": "InternalIP", "address": "10.0.0.9"},
        {"type": "Hostname", "address": "n"},
    ]


def test_missing_merge_key_error_prints_numbers_like_go():
    patch = {
        "spec": {"template": {"spec": {"containers": [{"name": "web", "ports": [{"name": "http", "hostPort": 8080}]}]}}}
    }
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch(deployment(), patch)
    assert str(excinfo.value) == "map: map[hostPort:8080 name:http] does not contain declared merge key: containerPort"


def test_malformed_set_element_order_key_is_rejected():
    patch = {"spec": {"template": {"spec": {"$setElementOrderX/containers": [{"name": "web"}]}}}}
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch(deployment(), patch)
    assert str(excinfo.value) == "invalid patch format of setElementOrder list"


def test_malformed_delete_from_primitive_list_key_is_rejected():
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch({"metadata": {}}, {"metadata": {"$deleteFromPrimitiveList": ["a"]}})
    assert str(excinfo.value) == "invalid patch format of primitive list"


def test_lists_of_lists_cannot_be_merged():
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch({"metadata": {"finalizers": []}}, {"metadata": {"finalizers": [["b"]]}})
    assert str(excinfo.value) == "lists of lists are not supported"


def test_mixing_scalars_and_lists_reports_both_lists_go_style():
    with pytest.raises(PatchError) as excinfo:
        strategic_merge_patch({"metadata": {"finalizers": ["a"]}}, {"metadata": {"finalizers": [["b"]]}})
    assert str(excinfo.value) == "list element types are not identical: [[a] [[b]]]"


def test_every_live_element_with_the_deleted_key_is_removed():
    target = {"status": {"conditions": [{"type": "Ready", "n": 1}, {"type": "Ready", "n": 2}, {"type": "X"}]}}
    patch = {"status": {"conditions": [{"$patch": "delete", "type": "Ready"}]}}
    assert strategic_merge_patch(target, patch)["status"]["conditions"] == [{"type": "X"}]
