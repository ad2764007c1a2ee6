"""The preemption lesson: a full cluster, a Pod of higher priority arrives, the scheduler evicts the fewest and
least important Pods from one node, and the Pod runs there."""

from __future__ import annotations

from typing import Any

from .manifests import filler
from .script import Action, Lesson, NodeSpec, Step

CHECKOUT = """apiVersion: scheduling.k8s.io/v1
kind: PriorityClass
metadata:
  name: urgent
value: 10000
description: "The shop's checkout: it must run."
---
apiVersion: v1
kind: Pod
metadata:
  name: checkout
  labels:
    app: checkout
spec:
  priorityClassName: urgent
  containers:
  - name: app
    image: nginx:1.27
    resources:
      requests:
        cpu: "1"
"""


def _priority_class(name: str, value: int, description: str) -> dict[str, Any]:
    return {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": name},
            "value": value, "description": description}


def _pod(name: str, node: str, cpu: str, priority_class: str = "") -> dict[str, Any]:
    pod = filler(name, node, cpu=cpu, image="nginx:1.27", labels={"app": name})
    if priority_class:
        pod["spec"]["priorityClassName"] = priority_class
    return pod


PREEMPTION = Lesson(
    "preemption", "15. Priority and preemption", "15. 优先级与抢占",
    CHECKOUT,
    (
        Step(
            "Both nodes have 2 CPUs and both are nearly full. node01 runs report-a (1 CPU) and report-b (800m) of "
            "PriorityClass batch (value 100); node02 runs cache (1 CPU, no class: priority 0) and frontend (800m, "
            "class production, value 5000). checkout.yaml holds the PriorityClass urgent (value 10000) and the Pod "
            "checkout that names it and needs 1 CPU; the Priority admission step writes spec.priority: 10000 into "
            "the Pod. No node fits (Insufficient cpu), so the PostFilter plugin DefaultPreemption looks for Pods of "
            "lower priority it could evict.",
            "两个节点都有 2 个 CPU，而且都快满了。node01 上运行 report-a（1 CPU）和 report-b（800m），它们的 "
            "PriorityClass 是 batch（值 100）；node02 上运行 cache（1 CPU，没有指定类，优先级 0）和 frontend（800m，"
            "类 production，值 5000）。checkout.yaml 包含 PriorityClass urgent（值 10000）和引用它、需要 1 个 CPU 的 "
            "Pod checkout；优先级准入步骤把 spec.priority: 10000 写进 Pod。没有节点放得下（CPU 不足），于是 "
            "PostFilter 插件 DefaultPreemption 寻找可以驱逐的更低优先级的 Pod。",
            Action("apply", "checkout.yaml", label="Apply checkout.yaml", label_zh="应用 checkout.yaml（kubectl apply）"),
            question="On each node, which Pods would have to go? Which node should lose less?",
            question_zh="在每个节点上，哪些 Pod 必须离开？哪个节点的损失更小？",
        ),
        Step(
            "Click checkout: the scoring panel's PostFilter section lists the candidates. On node01 only report-b "
            "must go (report-a is given back: with report-b gone checkout fits); on node02 only cache must go "
            "(frontend is more important and is given back first). Both need one victim, so the scheduler compares "
            "the highest priority among the victims: 0 on node02 against 100 on node01, and picks node02.",
            "点击 checkout：评分面板的 PostFilter 部分列出候选节点。在 node01 上只有 report-b 必须离开（report-a "
            "被放回：只要 report-b 离开，checkout 就放得下）；在 node02 上只有 cache 必须离开（frontend 更重要，"
            "先被放回）。两个节点都只需要一个牺牲者，于是调度器比较牺牲者中的最高优先级：node02 是 0，node01 是 "
            "100，所以选择 node02。",
            question="What happens to cache, and where does checkout wait meanwhile?",
            question_zh="cache 会怎样？在此期间 checkout 在哪里等待？",
        ),
        Step(
            "cache gets the condition DisruptionTarget (reason PreemptionByScheduler) and is deleted gracefully; "
            "its events say \"Preempted by pod ... on node node02\". checkout stays Pending with "
            "NOMINATED NODE node02 (kubectl get pods -o wide). Once cache is gone, the deletion wakes checkout up "
            "and it is scheduled on node02. cache was a bare Pod: nothing recreates it.",
            "cache 获得 DisruptionTarget 状况（原因 PreemptionByScheduler），并被优雅地删除；它的事件写着它被 "
            "checkout 在 node02 上抢占。checkout 保持 Pending，NOMINATED NODE 为 node02（kubectl get pods -o wide）。"
            "cache 一消失，这次删除就唤醒 checkout，它被调度到 node02。cache 是单独的 Pod，没有谁会重建它。",
        ),
        Step(
            "Delete checkout (kubectl delete pod checkout) to end the lesson.",
            "删除 checkout（kubectl delete pod checkout），结束本课。",
            Action("delete-pod", "pod/checkout", label="Delete pod checkout", label_zh="删除 Pod checkout"),
        ),
    ),
    nodes=(NodeSpec("node01", cpu="2", memory="4Gi"), NodeSpec("node02", cpu="2", memory="4Gi")),
    fillers=(
        _priority_class("batch", 100, "Reports that can wait."),
        _priority_class("production", 5000, "The shop's pages."),
        _pod("report-a", "node01", "1", "batch"),
        _pod("report-b", "node01", "800m", "batch"),
        _pod("cache", "node02", "1"),
        _pod("frontend", "node02", "800m", "production"),
    ),
    follow="Pod/checkout",
)
