"""The DaemonSet lesson: one Pod on every node, following the nodes' taints, and a rolling update node by node."""

from __future__ import annotations

from .manifests import IMAGE
from .script import Action, Lesson, Step

AGENT = f"""apiVersion: apps/v1
kind: DaemonSet
metadata:
  name: agent
spec:
  selector:
    matchLabels:
      app: agent
  template:
    metadata:
      labels:
        app: agent
    spec:
      containers:
      - name: agent
        image: {IMAGE}
"""

DAEMON_SETS = Lesson(
    "daemonset", "11. DaemonSet: one Pod on every node", "11. DaemonSet：每个节点上一个 Pod",
    AGENT,
    (
        Step(
            "A DaemonSet agent has no replica count: it runs one copy of its Pod on every node that may take it, "
            "the way a log collector or a node monitor must.",
            "DaemonSet agent 没有副本数：它在每个可以运行它的节点上运行一个 Pod 副本，就像日志收集或节点监控那样。",
            Action("apply", "agent.yaml", label="Apply agent.yaml", label_zh="应用 agent.yaml（kubectl apply）"),
            question="How many Pods, and on which nodes? Does the scheduler take part?",
            question_zh="会有几个 Pod，在哪些节点上？调度器参与吗？",
        ),
        Step(
            "Three, one per node. The DaemonSet controller writes each Pod unbound, with the required node affinity "
            "metadata.name In [its node], and the scheduler still binds it (hops 9-11): open the scoring panel, only "
            "that node passes NodeAffinity.",
            "三个，每个节点一个。DaemonSet 控制器创建的每个 Pod 都没有绑定节点，但带着必须满足的节点亲和性 "
            "metadata.name In [它的节点]，仍由调度器绑定（第 9-11 步）：打开调度打分面板，只有那个节点通过 NodeAffinity。",
        ),
        Step(
            "Taint node03 with dedicated=db:NoExecute, as kubectl taint node does.",
            "像 kubectl taint node 一样，给 node03 加上污点 dedicated=db:NoExecute。",
            Action("taint", "node03", "dedicated=db:NoExecute", label="Taint node03 dedicated=db:NoExecute",
                   label_zh="给 node03 加污点 dedicated=db:NoExecute"),
            question="What happens to the agent Pod on node03?",
            question_zh="node03 上的 agent Pod 会怎样？",
        ),
        Step(
            "It is deleted: the DaemonSet does not tolerate the taint, so node03 is no longer eligible and "
            "kubectl get ds shows DESIRED 2. Daemon Pods tolerate only the node conditions (not-ready, unreachable, "
            "pressure, unschedulable) by default.",
            "它被删除了：DaemonSet 不容忍这个污点，node03 不再符合条件，kubectl get ds 显示 DESIRED 为 2。"
            "DaemonSet 的 Pod 默认只容忍节点状况类的污点（node.kubernetes.io/not-ready、"
            "node.kubernetes.io/unreachable、node.kubernetes.io/unschedulable 等）。",
        ),
        Step(
            "Remove the taint again (kubectl taint node node03 dedicated:NoExecute-).",
            "再把污点去掉（kubectl taint node node03 dedicated:NoExecute-）。",
            Action("untaint", "node03", "dedicated:NoExecute", label="Remove the taint from node03",
                   label_zh="去掉 node03 的污点"),
        ),
        Step(
            "node03 is eligible again, and the DaemonSet controller at once creates a new agent Pod for it.",
            "node03 重新符合条件，DaemonSet 控制器马上为它创建一个新的 agent Pod。",
        ),
        Step(
            "The image is upgraded: set agent's image to soscscs/myapp:v2.",
            "镜像升级：把 agent 的镜像改成 soscscs/myapp:v2。",
            Action("set-image", "daemonset/agent", "agent=soscscs/myapp:v2", label="Set image soscscs/myapp:v2",
                   label_zh="把镜像改为 soscscs/myapp:v2"),
            question="Will the three Pods be replaced all at once?",
            question_zh="三个 Pod 会同时被替换吗？",
        ),
        Step(
            "No: node by node (maxUnavailable 1). Each old Pod is deleted, then its node gets the new one. "
            "kubectl rollout history ds/agent lists revisions 1 and 2: ControllerRevisions that kubectl rollout undo "
            "goes back to.",
            "不会：一个节点一个节点地替换（maxUnavailable 1）。先删除旧 Pod，再在该节点上创建新的。"
            "kubectl rollout history ds/agent 列出版本 1 和 2：它们是 ControllerRevision，kubectl rollout undo 可以回到旧版本。",
        ),
    ),
)
