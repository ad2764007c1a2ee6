"""Profiles: the v1.35 default, KubeSchedulerConfiguration merging and validation messages."""

from __future__ import annotations

import pytest

from clusterviz.scheduler.profile import (
    ConfigurationError,
    default_profile,
    load_configuration,
    upstream_default_profile,
    validate_configuration,
)

FILTERS = (
    "NodeUnschedulable",
    "NodeName",
    "TaintToleration",
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "VolumeRestrictions",
    "NodeVolumeLimits",
    "VolumeBinding",
    "VolumeZone",
    "PodTopologySpread",
    "InterPodAffinity",
    "DynamicResources",
)
SCORES = (
    "TaintToleration",
    "NodeAffinity",
    "NodeResourcesFit",
    "VolumeBinding",  # enabled, as upstream's; its PreScore Skips without StorageCapacityScoring
    "PodTopologySpread",
    "InterPodAffinity",
    "NodeResourcesBalancedAllocation",
    "ImageLocality",
)


def profile_with(plugins=None, plugin_config=None, **extra):
    raw = {"plugins": plugins or {}, "pluginConfig": plugin_config or [], **extra}
    return load_configuration(
        {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration", "profiles": [raw]}
    ).profile


def errors_of(config):
    with pytest.raises(ConfigurationError) as info:
        load_configuration(config)
    return info.value.messages


class TestDefaultProfile:
    def test_filter_order(self):
        assert default_profile().plugins["filter"] == FILTERS

    def test_score_plugins_and_weights(self):
        profile = default_profile()
        assert profile.plugins["score"] == SCORES
        assert [profile.weight(p) for p in SCORES] == [3, 2, 1, 1, 2, 2, 1, 1]

    def test_other_extension_points(self):
        plugins = default_profile().plugins
        assert plugins["postFilter"] == ("DynamicResources", "DefaultPreemption")
        assert plugins["queueSort"] == ("PrioritySort",)
        assert plugins["preEnqueue"] == ("SchedulingGates",)
        assert plugins["bind"] == ("DefaultBinder",)
        assert plugins["preScore"] == (
            "TaintToleration",
            "NodeAffinity",
            "NodeResourcesFit",
            "VolumeBinding",
            "PodTopologySpread",
            "InterPodAffinity",
            "NodeResourcesBalancedAllocation",
        )

    def test_classroom_default_scores_all_nodes_upstream_is_adaptive(self):
        assert default_profile().percentage_of_nodes_to_score == 100
        assert upstream_default_profile().percentage_of_nodes_to_score is None

    def test_explanations_in_two_languages_and_legacy_names(self):
        profile = default_profile()
        for name in FILTERS + SCORES:
            plugin = profile.plugin(name)
            assert plugin.explanation["en"] and plugin.explanation["zh"]
        assert profile.plugin("NodeResourcesBalancedAllocation").legacy_name("score") == "BalancedResourceAllocation"
        assert profile.plugin("VolumeRestrictions").legacy_name("filter") == "NoDiskConflict"


class TestMerging:
    def test_disabling_one_score_plugin(self):
        profile = profile_with({"score": {"disabled": [{"name": "ImageLocality"}]}})
        assert "ImageLocality" not in profile.plugins["score"]
        assert profile.plugins["filter"] == FILTERS

    def test_disable_all_then_enable_one_with_a_weight(self):
        profile = profile_with(
            {"score": {"disabled": [{"name": "*"}], "enabled": [{"name": "NodeResourcesFit", "weight": 5}]}}
        )
        assert profile.plugins["score"] == ("NodeResourcesFit",)
        assert profile.weight("NodeResourcesFit") == 5

    def test_reconfigured_plugin_moves_first_and_takes_the_new_weight(self):
        profile = profile_with({"score": {"enabled": [{"name": "ImageLocality", "weight": 5}]}})
        assert profile.plugins["score"][0] == "ImageLocality"
        assert profile.weight("ImageLocality") == 5 and profile.weight("TaintToleration") == 3

    def test_multi_point_disable_removes_the_plugin_everywhere(self):
        profile = profile_with({"multiPoint": {"disabled": [{"name": "TaintToleration"}]}})
        assert "TaintToleration" not in profile.plugins["filter"] + profile.plugins["score"]

    def test_scoring_strategy_from_plugin_config(self):
        args = {
            "scoringStrategy": {
                "type": "MostAllocated",
                "resources": [{"name": "cpu", "weight": 3}, {"name": "memory"}],
            }
        }
        profile = profile_with(plugin_config=[{"name": "NodeResourcesFit", "args": args}])
        plugin = profile.plugin("NodeResourcesFit")
        assert plugin.legacy_name("score") == "MostRequestedPriority"
        assert plugin.strategy.resources == (("cpu", 3), ("memory", 1))

    def test_hard_pod_affinity_weight_and_percentage(self):
        profile = profile_with(
            plugin_config=[{"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 7}}],
            percentageOfNodesToScore=40,
        )
        assert profile.plugin("InterPodAffinity").hard_pod_affinity_weight == 7
        assert profile.percentage_of_nodes_to_score == 40

    def test_backoff_settings(self):
        config = load_configuration({"podInitialBackoffSeconds": 2, "podMaxBackoffSeconds": 20})
        assert (config.pod_initial_backoff_seconds, config.pod_max_backoff_seconds) == (2, 20)


class TestValidation:
    def test_valid_configuration_has_no_messages(self):
        assert validate_configuration({"profiles": [{"schedulerName": "default-scheduler"}]}) == []

    def test_percentage_out_of_range(self):
        assert errors_of({"percentageOfNodesToScore": 150}) == [
            "percentageOfNodesToScore: Invalid value: 150: not in valid range [0-100]"
        ]

    def test_unknown_plugin(self):
        config = {"profiles": [{"plugins": {"score": {"enabled": [{"name": "Foo"}]}}}]}
        assert errors_of(config) == ['profiles[0].plugins.score.enabled[0].name: Not found: "Foo"']

    def test_plugin_at_the_wrong_extension_point(self):
        config = {"profiles": [{"plugins": {"score": {"enabled": [{"name": "NodeName"}]}}}]}
        assert errors_of(config) == [
            'profiles[0].plugins.score.enabled[0].name: Invalid value: "NodeName": plugin "NodeName" does not extend score plugin'
        ]

    def test_resource_weight_out_of_range(self):
        args = {"scoringStrategy": {"resources": [{"name": "cpu", "weight": 101}]}}
        config = {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": args}]}]}
        assert errors_of(config) == [
            "profiles[0].pluginConfig[0].args.scoringStrategy.resources[0].weight: Invalid value: 101: "
            "resource weight of cpu not in valid range (0, 100]"
        ]

    def test_unsupported_strategy_and_missing_shape(self):
        bad = {
            "profiles": [
                {"pluginConfig": [{"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "Random"}}}]}
            ]
        }
        assert errors_of(bad) == [
            'profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Random": supported values: '
            '"LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"'
        ]
        ratio = {
            "profiles": [
                {
                    "pluginConfig": [
                        {"name": "NodeResourcesFit", "args": {"scoringStrategy": {"type": "RequestedToCapacityRatio"}}}
                    ]
                }
            ]
        }
        assert errors_of(ratio) == [
            "profiles[0].pluginConfig[0].args.scoringStrategy.shape: Required value: at least one point must be specified"
        ]

    def test_shape_must_be_sorted(self):
        shape = [{"utilization": 50, "score": 5}, {"utilization": 10, "score": 11}]
        args = {"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": {"shape": shape}}}
        messages = errors_of({"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": args}]}]})
        assert (
            "profiles[0].pluginConfig[0].args.scoringStrategy.shape[1].utilization: Invalid value: 10: values must be sorted in increasing order"
            in messages
        )
        assert (
            "profiles[0].pluginConfig[0].args.scoringStrategy.shape[1].score: Invalid value: 11: not in valid range [0, 10]"
            in messages
        )

    def test_inter_pod_affinity_weight_range(self):
        config = {
            "profiles": [{"pluginConfig": [{"name": "InterPodAffinity", "args": {"hardPodAffinityWeight": 101}}]}]
        }
        assert errors_of(config) == [
            "profiles[0].pluginConfig[0].args.hardPodAffinityWeight: Invalid value: 101: not in valid range [0, 100]"
        ]

    def test_system_defaulting_with_constraints(self):
        args = {
            "defaultingType": "System",
            "defaultConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway"}],
        }
        config = {"profiles": [{"pluginConfig": [{"name": "PodTopologySpread", "args": args}]}]}
        assert errors_of(config) == [
            'profiles[0].pluginConfig[0].args.defaultingType: Invalid value: "System": when .defaultConstraints are not empty'
        ]

    def test_duplicate_plugin_config_and_backoffs(self):
        config = {
            "podInitialBackoffSeconds": 5,
            "podMaxBackoffSeconds": 1,
            "profiles": [
                {"pluginConfig": [{"name": "NodeAffinity", "args": {}}, {"name": "NodeAffinity", "args": {}}]}
            ],
        }
        assert errors_of(config) == [
            "podMaxBackoffSeconds: Invalid value: 1: must be greater than or equal to PodInitialBackoffSeconds",
            'profiles[0].pluginConfig[1]: Duplicate value: "NodeAffinity"',
        ]

    def test_a_bind_plugin_is_required(self):
        config = {"profiles": [{"plugins": {"bind": {"disabled": [{"name": "*"}]}}}]}
        assert errors_of(config) == ["profiles[0].plugins.bind: Invalid value: []: at least one bind plugin is needed"]

    def test_wrong_api_version(self):
        assert errors_of({"apiVersion": "kubescheduler.config.k8s.io/v1beta3"}) == [
            'apiVersion: Unsupported value: "kubescheduler.config.k8s.io/v1beta3": supported values: "kubescheduler.config.k8s.io/v1"'
        ]
