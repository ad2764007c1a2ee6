"""The classroom scenarios: a known cluster state, a manifest to apply, and what to watch.

Loading one resets the cluster's nodes and workloads through the API, puts the
simulation in step mode and hands the manifest to the editor.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from clusterviz.api import errors
from clusterviz.api.bootstrap import node_object
from clusterviz.api.client import Client


@dataclass(frozen=True)
class NodeSpec:
    name: str
    cpu: str = "4"
    memory: str = "8Gi"
    labels: dict[str, str] = field(default_factory=dict)
    taints: tuple[dict[str, str], ...] = ()


# The demo's nodes: what a cluster is reset to when no lesson asks for others.
DEFAULT_NODES = (NodeSpec("node01"), NodeSpec("node02"), NodeSpec("node03"))


@dataclass(frozen=True)
class Scenario:
    key: str
    title: str
    title_zh: str
    watch: str
    watch_zh: str
    manifest: str
    nodes: tuple[NodeSpec, ...] = DEFAULT_NODES
    # Pods placed before the lesson starts (pinned with nodeName), to load nodes for scoring lessons.
    fillers: tuple[dict[str, Any], ...] = ()


def _deployment(name: str, replicas: int, pod_spec: str, image: str = "soscscs/myapp:v1") -> str:
    return f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: {name}
spec:
  replicas: {replicas}
  selector:
    matchLabels:
      app: {name}
  template:
    metadata:
      labels:
        app: {name}
    spec:
{pod_spec}      containers:
      - name: {name}
        image: {image}
        ports:
        - containerPort: 80
"""


def _filler(name: str, node: str, cpu: str, memory: str) -> dict[str, Any]:
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "namespace": "default",
                                                            "labels": {"role": "filler"}},
            "spec": {"nodeName": node, "containers": [{"name": "load", "image": "busybox:1.36",
                                                        "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}}


SCENARIOS: tuple[Scenario, ...] = (
    Scenario(
        "creation-flow", "1. The creation flow, hop by hop", "1. 创建流程，逐步观察",
        "Apply, then step: kubectl → API server → etcd (1-3), the controller manager's watch (4-5), Pods created "
        "(6-8), the scheduler picks nodes (9-11), the kubelet pulls and starts (12-13).",
        "点击“应用”后单步执行：kubectl → API Server → etcd（1-3），控制器管理器的 list-watch（4-5），创建 Pod（6-8），"
        "调度器选择节点（9-11），kubelet 拉取镜像并启动容器（12-13）。",
        _deployment("myapp", 3, ""),
    ),
    Scenario(
        "node-name", "2. nodeName: the scheduler is bypassed", "2. nodeName：跳过调度器",
        "All three Pods go to node01 without a scheduling decision: there is no Scheduled event.",
        "三个 Pod 都直接落在 node01 上，没有调度决策，也没有 Scheduled 事件。",
        _deployment("myapp", 3, "      nodeName: node01\n"),
    ),
    Scenario(
        "node-selector", "3. nodeSelector: Pending until a node gets the label", "3. nodeSelector：打标签前一直 Pending",
        "No node has disktype=ssd, so the Pods stay Pending with FailedScheduling. Label node02 disktype=ssd "
        "from its card and watch them get scheduled.",
        "没有节点带 disktype=ssd 标签，Pod 一直 Pending（FailedScheduling）。在 node02 卡片上打标签 disktype=ssd，"
        "观察 Pod 被调度。",
        _deployment("myapp", 2, "      nodeSelector:\n        disktype: ssd\n"),
    ),
    Scenario(
        "node-affinity", "4. Node affinity: hard rules, then soft weights", "4. 节点亲和性：先硬策略，再按权重看软策略",
        "Required: zone In (a, b) rules out node03. Preferred: disktype=ssd (weight 80) beats gpu Exists "
        "(weight 20), so node01 scores highest. Open a Pod's scoring panel to see NodeAffinity's scores.",
        "硬策略：标签 zone=a 或 zone=b（In）排除了 node03。软策略：disktype=ssd（权重 80）胜过有 gpu=… 标签（Exists，"
        "权重 20），所以 node01 得分最高。点开 Pod 的打分面板查看 NodeAffinity 的分数。",
        _deployment("myapp", 2, """      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - {key: zone, operator: In, values: [a, b]}
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 80
            preference:
              matchExpressions:
              - {key: disktype, operator: In, values: [ssd]}
          - weight: 20
            preference:
              matchExpressions:
              - {key: gpu, operator: Exists}
"""),
        nodes=(NodeSpec("node01", labels={"zone": "a", "disktype": "ssd"}),
               NodeSpec("node02", labels={"zone": "b", "gpu": "true"}),
               NodeSpec("node03", labels={"zone": "c", "disktype": "ssd"})),
    ),
    Scenario(
        "pod-anti-affinity", "5. Pod anti-affinity: one replica per node", "5. Pod 反亲和性：每个节点一个副本",
        "Each Pod refuses a node that already runs an app=myapp Pod (topologyKey kubernetes.io/hostname). "
        "Scale to 4 and the fourth stays Pending.",
        "每个 Pod 都不去已有 app=myapp Pod 的节点（topologyKey 为 kubernetes.io/hostname）。扩容到 4 个，"
        "第四个会一直 Pending。",
        _deployment("myapp", 3, """      affinity:
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels: {app: myapp}
            topologyKey: kubernetes.io/hostname
"""),
    ),
    Scenario(
        "balanced-allocation", "6. Resources: LeastRequested vs BalancedAllocation", "6. 资源：最低请求优先级与平衡资源分配",
        "node01 is already at 20% CPU / 60% memory, node02 at 50% / 50%, node03 is full. BalancedResourceAllocation "
        "prefers node02, whose CPU and memory use are closer together; node03 fails with Insufficient cpu.",
        "node01 已用 20% CPU / 60% 内存，node02 为 50% / 50%，node03 已满。BalancedResourceAllocation 更偏好 CPU "
        "与内存使用更接近的 node02；node03 因 CPU 不足被过滤。",
        """apiVersion: v1
kind: Pod
metadata:
  name: balanced
spec:
  containers:
  - name: web
    image: nginx:1.27
    resources:
      requests:
        cpu: 200m
        memory: 200Mi
""",
        fillers=(_filler("load-node01", "node01", "800m", "4915Mi"), _filler("load-node02", "node02", "2", "4Gi"),
                 _filler("load-node03", "node03", "4", "1Gi")),
    ),
    Scenario(
        "host-port", "7. Host ports and disk conflicts", "7. 主机端口冲突与磁盘冲突",
        "Both replicas want hostPort 8080; the scheduler puts them on different nodes (NodePorts / "
        "PodFitsHostPorts). Scale to 4 and one stays Pending: no node has the port free.",
        "两个副本都要 hostPort 8080，调度器把它们放到不同节点（NodePorts / PodFitsHostPorts）。扩容到 4 个，"
        "有一个会 Pending：没有节点还空着这个端口。",
        _deployment("myapp", 2, "").replace("        - containerPort: 80\n",
                                            "        - containerPort: 80\n          hostPort: 8080\n"),
    ),
    Scenario(
        "scale-and-roll", "8. Scale and roll: 1 → 2 → 5 → 1, then a new image", "8. 扩缩容与滚动更新",
        "Scale the ReplicationController mysql with kubectl scale rc mysql --replicas=2 (then 5, then 1), and "
        "change the Deployment's image to soscscs/myapp:v2 to watch a rolling update.",
        "在对象面板里把 ReplicationController mysql 扩缩容到 2 个副本（再 5 个、再 1 个），并把 Deployment 的镜像改成 "
        "soscscs/myapp:v2，观察滚动更新。",
        """apiVersion: v1
kind: ReplicationController
metadata:
  name: mysql
spec:
  replicas: 1
  selector:
    app: mysql
  template:
    metadata:
      labels:
        app: mysql
    spec:
      containers:
      - name: mysql
        image: mysql:8.4
        ports:
        - containerPort: 3306
---
""" + _deployment("myapp", 3, ""),
    ),
    Scenario(
        "node-failure", "9. A node fails", "9. 节点故障",
        "Apply, then stop node02's kubelet from its card. After the grace period the node controller marks it "
        "NotReady and taints it; its Pods are evicted and recreated on the other nodes.",
        "点击“应用”后在 node02 卡片上停止 kubelet。宽限期过后节点控制器把它标记为 NotReady 并打上污点，"
        "上面的 Pod 被驱逐并在其他节点重建。",
        _deployment("myapp", 3, ""),
    ),
    Scenario(
        "service", "10. A Service and its endpoints", "10. Service 与 Endpoints",
        "The Service selects app=myapp; its Endpoints list exactly the Ready Pods. Scale the Deployment or stop a "
        "kubelet and watch kubectl get endpoints myapp follow.",
        "Service 通过标签 app=myapp 选择 Pod，Endpoints 只列出 Ready 的 Pod。扩缩容或停止某个 kubelet，"
        "在对象面板的 Service + Endpoints 标签页观察变化。",
        _deployment("myapp", 3, "") + """---
apiVersion: v1
kind: Service
metadata:
  name: myapp
spec:
  selector:
    app: myapp
  ports:
  - port: 80
    targetPort: 80
""",
    ),
)

BY_KEY = {s.key: s for s in SCENARIOS}

# What a reset removes (in every namespace); the API server's own Service "kubernetes" stays.
_WORKLOADS = ("deployments", "replicasets", "replicationcontrollers", "services", "endpoints", "configmaps",
              "pods", "events", "schedulingdecisions")


async def reset(cluster: str, nodes: tuple[NodeSpec, ...] = DEFAULT_NODES,
                fillers: tuple[dict[str, Any], ...] = ()) -> None:
    """Remove every workload and node of ``cluster`` and register ``nodes`` afresh; the mode is kept."""
    client = Client(cluster, "dashboard", simulated=False)
    mode = (await client.get("simulations", "default"))["spec"]["mode"]
    # Fast-forward so that the components catch up with the deletions at once.
    await client.patch("simulations", "default", {"spec": {"mode": "fast-forward"}})
    for plural in _WORKLOADS:
        for item in (await client.list(plural))["items"]:
            meta = item["metadata"]
            if plural in ("services", "endpoints") and (meta.get("namespace"), meta["name"]) == ("default", "kubernetes"):
                continue
            try:
                await client.delete(plural, meta["name"], meta.get("namespace", ""), {"gracePeriodSeconds": 0})
            except errors.StatusError as exc:
                if exc.code != 404:
                    raise
    for node in (await client.list("nodes"))["items"]:
        await client.delete("nodes", node["metadata"]["name"])
    for index, spec in enumerate(nodes, start=1):
        body = node_object(spec.name, index, spec.cpu, spec.memory, labels=spec.labels)
        if spec.taints:
            body["spec"]["taints"] = list(spec.taints)
        await client.create(body)
    for filler in fillers:
        await client.create(filler)
    await client.patch("simulations", "default", {"spec": {"mode": mode}})


async def load(cluster: str, scenario: Scenario) -> None:
    """Reset ``cluster`` to the scenario's starting state and leave its simulation in step mode."""
    await reset(cluster, scenario.nodes, scenario.fillers)
    client = Client(cluster, "dashboard", simulated=False)
    await client.patch("simulations", "default", {"spec": {"mode": "step"}})
