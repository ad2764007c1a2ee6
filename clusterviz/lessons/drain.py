"""The drain lesson: kubectl drain empties a node through evictions, which a PodDisruptionBudget paces."""

from __future__ import annotations

from .manifests import deployment
from .script import Action, Lesson, NodeSpec, Step

SHOP = deployment("shop", 4) + """---
apiVersion: policy/v1
kind: PodDisruptionBudget
metadata:
  name: shop
spec:
  minAvailable: 3
  selector:
    matchLabels:
      app: shop
"""

DRAIN = Lesson(
    "drain", "16. Draining a node under a PodDisruptionBudget", "16. 在 PodDisruptionBudget 约束下腾空节点",
    SHOP,
    (
        Step(
            "The Deployment shop runs 4 replicas on two nodes, and its PodDisruptionBudget shop asks that at least 3 "
            "of them stay Ready through voluntary disruptions: evictions, such as a drain's.",
            "Deployment shop 在两个节点上运行 4 个副本；它的 PodDisruptionBudget（干扰预算）shop 要求在自愿干扰"
            "（即驱逐，例如腾空（drain）节点时的驱逐）期间至少有 3 个保持 Ready。",
            Action("apply", "shop.yaml", label="Apply shop.yaml", label_zh="应用 shop.yaml（kubectl apply）"),
            question="kubectl get pdb shop: how many Pods may be evicted now?",
            question_zh="kubectl get pdb shop：现在可以驱逐几个 Pod？",
        ),
        Step(
            "ALLOWED DISRUPTIONS is 1: 4 Ready, 3 required. The disruption controller keeps this count in the budget's "
            "status, and every eviction asks it first.",
            "ALLOWED DISRUPTIONS 是 1：4 个 Ready，要求 3 个。干扰控制器把这个数写在 PodDisruptionBudget 的 status.disruptionsAllowed 里，"
            "每一次驱逐都先查看它。",
            question="node02 must go for maintenance. What happens to its two Pods?",
            question_zh="node02 要停机维护。它上面的两个 Pod 会怎样？",
        ),
        Step(
            "kubectl drain node02 cordons the node (SchedulingDisabled), then evicts its Pods through pods/eviction. "
            "The first eviction is allowed and the budget drops to 0, so the second answers 429: \"Cannot evict pod "
            "as it would violate the pod's disruption budget\", and kubectl tries again every 5 seconds. The "
            "Deployment replaces the evicted Pod on node01; once it is Ready the budget allows one more, and the "
            "drain finishes.",
            "kubectl drain node02 先禁止调度该节点（SchedulingDisabled），再通过 pods/eviction 驱逐它的 Pod。"
            "第一次驱逐被允许，预算降到 0，所以第二次驱逐得到 429：驱逐会违反该 Pod 的 PodDisruptionBudget，"
            "kubectl 每 5 秒重试一次。Deployment 在 node01 上创建新的 Pod 替代被驱逐的那个；它 Ready 之后预算又允许"
            "一次驱逐，腾空（drain）就完成了。",
            Action("drain", "node02", label="Drain node02", label_zh="腾空 node02（kubectl drain）"),
            question="Why did the drain wait, while deleting the Pods would not have?",
            question_zh="为什么腾空（drain）要等待，而直接删除 Pod 就不会等？",
        ),
        Step(
            "A deletion does not ask the budget; an eviction does, so a drain never takes more replicas down at once "
            "than the application allows. When the maintenance is over, kubectl uncordon node02 lets the scheduler "
            "use it again; the Pods already running on node01 stay where they are.",
            "删除不询问预算，驱逐会询问，所以腾空（drain）时同时停掉的副本永远不会超过应用允许的数量。维护结束后，"
            "kubectl uncordon node02 让调度器重新使用这个节点；已经在 node01 上运行的 Pod 留在原处。",
            Action("uncordon", "node02", label="Uncordon node02", label_zh="恢复调度 node02（kubectl uncordon）"),
        ),
    ),
    nodes=(NodeSpec("node01"), NodeSpec("node02")),
    follow="Deployment/shop",
)
