"""The ten classroom lessons of MISSION.md and those beyond the seeds, in course order, in English and Simplified
Chinese.

Each lesson's cluster (nodes, labels, images, filler Pods) is built so that what its
text promises really happens: the tests in ``tests/lessons`` run every script to the
end and check it through the API.
"""

from __future__ import annotations

from .autoscaling import AUTOSCALING
from .crash_loop import CRASH_LOOP
from .custom_resources import CUSTOM_RESOURCES
from .daemonset import DAEMON_SETS
from .drain import DRAIN
from .jobs import JOBS
from .manifests import deployment, filler
from .preemption import PREEMPTION
from .script import Action, Lesson, NodeSpec, Step
from .statefulset import STATEFUL_SETS
from .storage import STORAGE

APPLY = Action("apply", "myapp.yaml", label="Apply myapp.yaml", label_zh="应用 myapp.yaml（kubectl apply）")

# A node goes NotReady, is tainted and its Pods are evicted within about 20 simulated seconds:
# heartbeats every 2 s, declared unreachable after 8 s without one, Pods tolerate the taint 5 s.
FAST_FAILURE = {
    "heartbeatIntervalSeconds": 2,
    "nodeMonitorPeriodSeconds": 1,
    "nodeMonitorGracePeriodSeconds": 8,
    "podEvictionTimeoutSeconds": 5,
}


def _scale(target: str, replicas: int) -> Action:
    return Action("scale", target, str(replicas), label=f"Scale {target} to {replicas}",
                  label_zh=f"把 {target} 扩缩到 {replicas} 个副本")


def _kubelet(node: str, start: bool = False) -> Action:
    if start:
        return Action("start-kubelet", node, label=f"Start the kubelet on {node}",
                      label_zh=f"启动 {node} 上的 kubelet")
    return Action("stop-kubelet", node, label=f"Stop the kubelet on {node}", label_zh=f"停止 {node} 上的 kubelet")


CREATION_FLOW = Lesson(
    "creation-flow", "1. The creation flow, hop by hop", "1. 创建流程，逐步观察",
    deployment("myapp", 3),
    (
        Step(
            "kubectl apply sends the Deployment myapp (3 replicas of soscscs/myapp:v1) to the API server "
            "(port 6443 in a real cluster). Step through and follow the numbered hops.",
            "kubectl apply 把 Deployment myapp（3 个副本，镜像 soscscs/myapp:v1）发给 API Server（真实集群中是 6443 "
            "端口）。单步执行，跟着编号的消息走。",
            APPLY,
        ),
        Step(
            "Hops 1-3: kubectl → API server → etcd → API server. Only the API server reads and writes etcd; "
            "\"created\" means stored in etcd.",
            "第 1-3 步：kubectl → API Server → etcd → API Server。只有 API Server 读写 etcd；回复“已创建”就表示已经写入 etcd。",
            question="Nobody has told the controller manager yet. How will it find out about the new Deployment?",
            question_zh="还没有人通知控制器管理器。它怎么知道有了新的 Deployment？",
        ),
        Step(
            "Hops 4-5: the controller manager has been watching the API server all along (list-watch). Its "
            "controllers see fewer Pods than desired, so they ask the API server to create the replicas (6-8): "
            "the replication controller's job, \"scale up / scale down\".",
            "第 4-5 步：控制器管理器一直在通过 list-watch 监听 API Server。控制器发现 Pod 数量少于期望的副本数，"
            "就请 API Server 创建副本（第 6-8 步），这正是教材中 ReplicationController“扩容缩容的担当”的职责。",
        ),
        Step(
            "Hop 9: the scheduler (调度器) watches for Pods whose spec.nodeName is empty. It filters the nodes "
            "(predicates, 预选策略), scores the rest (priorities, 优选策略), and writes a binding (10-11).",
            "第 9 步：调度器监听 spec.nodeName 为空的 Pod，先过滤节点（预选策略），再给剩下的节点打分（优选策略），"
            "然后写入绑定（第 10-11 步）。",
            question="Three empty, identical nodes and three replicas: where will they go?",
            question_zh="三个一模一样的空节点，三个副本：它们会被放到哪里？",
        ),
        Step(
            "One per node: each Pod the scheduler places makes its node a little busier, so LeastRequestedPriority "
            "(NodeResourcesFit) scores the next Pod higher on the emptier nodes. Open a Pod's scoring panel to see "
            "each node's scores.",
            "每个节点一个：每放下一个 Pod，那个节点就忙一点，所以 LeastRequestedPriority（NodeResourcesFit）会给下一个 Pod "
            "在更空闲的节点上打更高的分。点开 Pod 的打分面板查看每个节点的得分。",
        ),
        Step(
            "Hops 12-13: the kubelet on each node (watching too) pulls soscscs/myapp:v1, starts the container and "
            "reports the Pod's status, which the API server stores in etcd. kubectl get pods -o wide shows them "
            "Running; kubectl describe pod lists Scheduled, Pulling, Pulled, Created, Started.",
            "第 12-13 步：各节点上的 kubelet（同样在 list-watch）拉取镜像 soscscs/myapp:v1、启动容器并上报 Pod 状态，"
            "API Server 把状态存入 etcd。kubectl get pods -o wide 显示 Running；kubectl describe pod 的事件依次是 "
            "Scheduled、开始拉取镜像、Pulled、Created、Started。",
        ),
    ),
)

NODE_NAME = Lesson(
    "node-name", "2. nodeName: the scheduler is bypassed", "2. nodeName：跳过调度器",
    deployment("myapp", 3, "      nodeName: node01\n"),
    (
        Step(
            "The seeds' myapp.yaml: every replica has spec.nodeName: node01. Apply it and step.",
            "教材里的 myapp.yaml：每个副本都写了 spec.nodeName: node01。应用后单步执行。",
            APPLY,
            question="The Pods already name their node. Will the scheduler receive them (hop 9)?",
            question_zh="Pod 已经指定了节点。调度器还会收到它们吗（第 9 步）？",
        ),
        Step(
            "No: the scheduler only takes Pods whose spec.nodeName is empty. The Pods go straight from the "
            "controller manager to node01's kubelet; nodeName is a forced match (PodFitsHost), no scoring at all.",
            "不会：调度器只处理 spec.nodeName 为空的 Pod。Pod 从控制器管理器直接交给 node01 的 kubelet；"
            "nodeName 是强制匹配（PodFitsHost），跳过调度器的调度策略，没有打分。",
        ),
        Step(
            "kubectl describe pod: the Events have no Scheduled entry, only the kubelet's Pulled, Created and Started "
            "(from kubelet, node01), as in the seeds.",
            "kubectl describe pod：事件里没有 Scheduled，只有 kubelet 的 Pulled、Created、Started（来自 kubelet, node01），"
            "和教材中一样。",
        ),
        Step(
            "Scale to 5: the new replicas also land on node01, however busy it gets.",
            "扩容到 5 个：新副本同样全部落在 node01 上，不管它有多忙。",
            _scale("deployment/myapp", 5),
        ),
    ),
)

NODE_SELECTOR = Lesson(
    "node-selector", "3. nodeSelector: Pending until a node gets the label", "3. nodeSelector：打标签前一直 Pending",
    deployment("myapp", 2, "      nodeSelector:\n        disktype: ssd\n"),
    (
        Step(
            "Two replicas with nodeSelector disktype: ssd. Unlike nodeName, this goes through the scheduler.",
            "两个副本，nodeSelector 为 disktype: ssd。和 nodeName 不同，它要经过调度器的调度策略。",
            APPLY,
            question="No node has the label disktype=ssd. What happens to the Pods?",
            question_zh="没有任何节点带 disktype=ssd 标签。这些 Pod 会怎样？",
        ),
        Step(
            "They stay Pending: every node fails the predicate PodSelectorMatches (plugin NodeAffinity): "
            "FailedScheduling \"0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector\". "
            "The scheduler keeps retrying until a node fits.",
            "它们一直处于 Pending：所有节点都通不过预选策略 PodSelectorMatches（插件 NodeAffinity），事件 FailedScheduling："
            "“0/3 个节点可用：3 个节点不满足 Pod 的节点亲和性/nodeSelector”。调度器会不断重试，直到有节点满足条件。",
        ),
        Step(
            "Label node02 disktype=ssd, exactly as kubectl label node does.",
            "像 kubectl label node 一样，给 node02 打上 disktype=ssd 标签。",
            Action("label", "node02", "disktype=ssd", label="Label node02 disktype=ssd",
                   label_zh="给 node02 打标签 disktype=ssd"),
            question="Which node will the two Pods go to now?",
            question_zh="现在两个 Pod 会去哪个节点？",
        ),
        Step(
            "Both to node02: the label change is an event the waiting Pods were queued for, so the scheduler "
            "tries them again at once, and only node02 passes.",
            "都去了 node02：标签的变化正是等待中的 Pod 关心的事件，调度器立即重试，只有 node02 通过预选。",
        ),
        Step(
            "Remove the label again (kubectl label node node02 disktype-).",
            "再把标签删掉（kubectl label node node02 disktype-）。",
            Action("unlabel", "node02", "disktype", label="Remove disktype from node02",
                   label_zh="删除 node02 的 disktype 标签"),
            question="Do the running Pods leave node02?",
            question_zh="正在运行的 Pod 会离开 node02 吗？",
        ),
        Step(
            "No: nodeSelector is checked when scheduling only. The Pods keep running on node02.",
            "不会：nodeSelector 只在调度时检查，Pod 继续在 node02 上运行。",
        ),
    ),
)

NODE_AFFINITY = Lesson(
    "node-affinity", "4. Node affinity: hard rules first, then soft weights", "4. 节点亲和性：先硬策略，再软策略",
    deployment("myapp", 2, """      affinity:
        nodeAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
            nodeSelectorTerms:
            - matchExpressions:
              - {key: disktype, operator: NotIn, values: [hdd]}
              - {key: maintenance, operator: DoesNotExist}
              - {key: cores, operator: Gt, values: ["4"]}
              - {key: cores, operator: Lt, values: ["64"]}
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 60
            preference:
              matchExpressions:
              - {key: zone, operator: In, values: [a]}
          - weight: 30
            preference:
              matchExpressions:
              - {key: gpu, operator: Exists}
"""),
    (
        Step(
            "Six nodes, each labelled to test one operator. The hard rule (硬策略, requiredDuringScheduling...) "
            "has four expressions, all of which must hold: disktype NotIn [hdd], maintenance DoesNotExist, "
            "cores Gt 4, cores Lt 64. Then two soft rules (软策略, preferredDuringScheduling...): zone In [a] "
            "(weight 60) and gpu Exists (weight 30).",
            "六个节点，每个节点的标签专门检验一个运算符。硬策略（requiredDuringScheduling...）有四个表达式，必须全部满足："
            "disktype NotIn [hdd]、maintenance DoesNotExist、cores Gt 4、cores Lt 64。然后是两条软策略"
            "（preferredDuringScheduling...）：zone In [a]（权重 60）和 gpu Exists（权重 30）。",
            APPLY,
            question="Look at the node cards' labels. Which nodes survive the hard rule, and which operator rules "
                     "out each of the others?",
            question_zh="看节点卡片上的标签：哪些节点能通过硬策略？其他节点分别被哪个运算符排除？",
        ),
        Step(
            "Hard rules first (先满足硬策略): node03 has disktype=hdd (NotIn rules it out), node04 has maintenance "
            "(DoesNotExist), node05 has cores=2 (not Gt 4), node06 has cores=128 (not Lt 64). Gt and Lt compare "
            "integers only. Open a Pod's scoring panel: NodeAffinity fails on those four.",
            "先满足硬策略：node03 带 disktype=hdd（被 NotIn 排除），node04 带 maintenance（被 DoesNotExist 排除），"
            "node05 的 cores=2（不满足 Gt 4），node06 的 cores=128（不满足 Lt 64）。Gt 和 Lt 只能比较整数。"
            "点开 Pod 的打分面板：这四个节点在 NodeAffinity 过滤中失败。",
            question="node01 is in zone a (In, weight 60); node02 has a gpu label (Exists, weight 30). "
                     "Which one wins the first Pod?",
            question_zh="node01 在 zone a（In，权重 60）；node02 带 gpu 标签（Exists，权重 30）。第一个 Pod 选谁？",
        ),
        Step(
            "Then the soft rules, several of them: the weights decide (多个软策略看权重). NodeAffinity's raw score is "
            "the sum of the matched weights, 60 for node01 and 30 for node02, normalised to 100 and 50 and "
            "weighted ×2 in the profile: node01 wins.",
            "再看软策略：多个软策略看权重。NodeAffinity 的原始分是满足的规则的权重之和：node01 为 60，node02 为 30，"
            "归一化后为 100 和 50，在调度配置中再乘以权重 2：node01 胜出。",
        ),
        Step(
            "Labels can change live. Take node04 out of maintenance (kubectl label node node04 maintenance-).",
            "标签可以随时修改。把 node04 的 maintenance 标签删掉（kubectl label node node04 maintenance-）。",
            Action("unlabel", "node04", "maintenance", label="Remove maintenance from node04",
                   label_zh="删除 node04 的 maintenance 标签"),
        ),
        Step(
            "Put node02 into zone a as well: it now matches both soft rules (60 + 30 = 90).",
            "把 node02 也放进 zone a：它现在同时满足两条软策略（60 + 30 = 90）。",
            Action("label", "node02", "zone=a", label="Label node02 zone=a", label_zh="给 node02 打标签 zone=a"),
            question="IgnoredDuringExecution: do the running Pods move?",
            question_zh="IgnoredDuringExecution：正在运行的 Pod 会迁移吗？",
        ),
        Step(
            "No, labels only count when scheduling. Scale to 4 and read the new Pods' scores: node02 now has the "
            "top NodeAffinity score, node04 passes the hard rule with no soft weight.",
            "不会，标签只在调度时起作用。扩容到 4 个，看新 Pod 的得分：node02 现在 NodeAffinity 得分最高，"
            "node04 通过了硬策略但没有软策略的权重。",
            _scale("deployment/myapp", 4),
        ),
    ),
    nodes=(
        NodeSpec("node01", "16", "32Gi", {"disktype": "ssd", "cores": "16", "zone": "a"}),
        NodeSpec("node02", "16", "32Gi", {"disktype": "ssd", "cores": "16", "gpu": "nvidia"}),
        NodeSpec("node03", "16", "32Gi", {"disktype": "hdd", "cores": "16", "zone": "a"}),
        NodeSpec("node04", "16", "32Gi", {"disktype": "ssd", "cores": "16", "maintenance": "true"}),
        NodeSpec("node05", "2", "4Gi", {"disktype": "ssd", "cores": "2", "zone": "a"}),
        NodeSpec("node06", "128", "512Gi", {"disktype": "ssd", "cores": "128", "gpu": "nvidia"}),
    ),
)

ZONE = "topology.kubernetes.io/zone"
POD_AFFINITY = Lesson(
    "pod-affinity", "5. Pod affinity and anti-affinity", "5. Pod 亲和性与反亲和性",
    deployment("web", 2, f"""      affinity:
        podAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels: {{app: cache}}
            topologyKey: {ZONE}
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm:
              labelSelector:
                matchLabels: {{app: cache}}
              topologyKey: kubernetes.io/hostname
        podAntiAffinity:
          requiredDuringSchedulingIgnoredDuringExecution:
          - labelSelector:
              matchLabels: {{app: web}}
            topologyKey: kubernetes.io/hostname
""") + "---\n" + deployment("batch", 0, f"""      affinity:
        podAntiAffinity:
          preferredDuringSchedulingIgnoredDuringExecution:
          - weight: 100
            podAffinityTerm:
              labelSelector:
                matchLabels: {{app: web}}
              topologyKey: {ZONE}
"""),
    (
        Step(
            "Four nodes in two zones (label topology.kubernetes.io/zone): node01 and node02 in zone-a, node03 and "
            "node04 in zone-b. A cache Pod (app=cache) already runs on node01. The web Deployment must run in "
            "the cache's zone (hard affinity, topologyKey zone), never two web Pods on one node (hard "
            "anti-affinity, topologyKey kubernetes.io/hostname), and would like the cache's very node (soft "
            "affinity, weight 100).",
            "四个节点分在两个可用区（标签 topology.kubernetes.io/zone）：node01、node02 在 zone-a，node03、node04 在 zone-b。"
            "node01 上已经有一个缓存 Pod（app=cache）。web 必须和缓存在同一个可用区（Pod 亲和性硬策略，topologyKey 为 zone），"
            "同一节点上不能有两个 web（反亲和性硬策略，topologyKey 为 kubernetes.io/hostname），"
            "最好就在缓存所在的节点上（亲和性软策略，权重 100）。",
            APPLY,
            question="Where will the two web replicas go?",
            question_zh="两个 web 副本会被放到哪里？",
        ),
        Step(
            "node03 and node04 fail InterPodAffinity (\"didn't match pod affinity rules\": no cache in zone-b). The "
            "first replica scores highest on node01, beside the cache; the second cannot share node01 (anti-"
            "affinity), so it takes node02, still in zone-a.",
            "node03 和 node04 在 InterPodAffinity 过滤中失败（不满足 Pod 亲和性规则：zone-b 没有缓存）。"
            "第一个副本在 node01（缓存旁边）得分最高；第二个因为反亲和性不能再去 node01，只能去同在 zone-a 的 node02。",
        ),
        Step(
            "Scale web to 3.",
            "把 web 扩容到 3 个。",
            _scale("deployment/web", 3),
            question="zone-a has two nodes and each already runs a web Pod. Where does the third go?",
            question_zh="zone-a 只有两个节点，而且都已经有 web Pod。第三个去哪里？",
        ),
        Step(
            "Nowhere: it stays Pending. \"0/4 nodes are available: 2 node(s) didn't match pod affinity rules, 2 "
            "node(s) didn't match pod anti-affinity rules.\" Hard rules are never bent.",
            "哪里都去不了，一直 Pending：“0/4 个节点可用：2 个节点不满足 Pod 亲和性规则，"
            "2 个节点不满足 Pod 反亲和性规则。”硬策略必须满足。",
        ),
        Step(
            "The batch Deployment (0 replicas so far) prefers to stay away from the web Pods' zone (soft "
            "anti-affinity, topologyKey zone). Scale it to 2.",
            "batch（目前 0 个副本）希望远离 web 所在的可用区（反亲和性软策略，topologyKey 为 zone）。把它扩容到 2 个。",
            _scale("deployment/batch", 2),
            question="Soft rules may be bent. Where will batch go?",
            question_zh="软策略可以不满足。batch 会去哪里？",
        ),
        Step(
            "To zone-b, node03 and node04: InterPodAffinity scores the zone-a nodes lower. Nothing forbade zone-a; "
            "the weights only made zone-b better.",
            "去了 zone-b 的 node03 和 node04：InterPodAffinity 给 zone-a 的节点打分更低。zone-a 并没有被禁止，"
            "只是权重让 zone-b 更好。",
        ),
    ),
    nodes=(
        NodeSpec("node01", labels={ZONE: "zone-a"}),
        NodeSpec("node02", labels={ZONE: "zone-a"}),
        NodeSpec("node03", labels={ZONE: "zone-b"}),
        NodeSpec("node04", labels={ZONE: "zone-b"}),
    ),
    fillers=(filler("cache", "node01", image="redis:7.4", labels={"app": "cache"}),),
    follow="Deployment/web",
)

RESOURCES = Lesson(
    "resources", "6. Resources: LeastRequested, BalancedAllocation, ImageLocality", "6. 资源：最少请求、均衡分配与镜像本地性",
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
---
apiVersion: v1
kind: Pod
metadata:
  name: builder
spec:
  nodeSelector:
    pool: build
  tolerations:
  - {key: pool, operator: Equal, value: build, effect: NoSchedule}
  containers:
  - name: build
    image: python:3.12
  - name: db
    image: mongo:8.0
""",
    (
        Step(
            "The seeds' example: node01 already uses 20% of its CPU and 60% of its memory, node02 50% and 50%; "
            "node03's CPU is fully requested. node04 and node05 are a build pool (tainted pool=build:NoSchedule) "
            "for the second Pod. Apply two Pods: balanced (200m CPU, 200Mi) and builder.",
            "教材中的例子：node01 已用 20% CPU、60% 内存，node02 为 50%、50%；node03 的 CPU 已经全部被请求。"
            "node04 和 node05 是构建节点池（污点 pool=build:NoSchedule），留给第二个 Pod。应用两个 Pod："
            "balanced（200m CPU、200Mi）和 builder。",
            Action("apply", "resources.yaml", label="Apply resources.yaml", label_zh="应用 resources.yaml（kubectl apply）"),
            question="node01's total use is lower, node02's is more even. Which will balanced go to?",
            question_zh="node01 的总使用率更低，node02 的 CPU 和内存更均衡。balanced 会去哪个节点？",
        ),
        Step(
            "Predicates first: node03 fails PodFitsResources (NodeResourcesFit: Insufficient cpu); node04 and "
            "node05 have a taint balanced does not tolerate.",
            "先看预选策略：node03 通不过 PodFitsResources（NodeResourcesFit：CPU 不足）；node04 和 node05 有 "
            "balanced 不容忍的污点。",
        ),
        Step(
            "Then priorities: LeastRequestedPriority (NodeResourcesFit) prefers node01, which is less used in "
            "total; BalancedResourceAllocation prefers node02, whose CPU and memory use are closer together, by "
            "more. node02 wins, as the seeds say (优选 node02).",
            "再看优选策略：LeastRequestedPriority（NodeResourcesFit）偏好总使用率更低的 node01；"
            "BalancedResourceAllocation 偏好 CPU 和内存使用率更接近的 node02，而且差距更大。node02 胜出，和教材一致（优选 node02）。",
        ),
        Step(
            "builder may only use the build pool. node04 already has python:3.12 (about 380 MB), node05 has "
            "mongo:8.0 (about 270 MB); builder needs both images. Everything else about the two nodes is equal.",
            "builder 只能使用构建节点池。node04 上已有 python:3.12（约 380 MB），node05 上已有 mongo:8.0（约 270 MB）；"
            "builder 两个镜像都要。两个节点其他方面完全相同。",
            question="Which node will builder go to?",
            question_zh="builder 会去哪个节点？",
        ),
        Step(
            "node04: ImageLocalityPriority (ImageLocality) prefers nodes that already have the images, and bigger "
            "images weigh more (an image on few nodes counts less, so Pods do not pile up). Its score decides "
            "the tie.",
            "node04：ImageLocalityPriority（ImageLocality）倾向于已经有所需镜像的节点，镜像越大权重越高"
            "（只在少数节点上的镜像按比例打折，避免 Pod 扎堆）。它的分数打破了平局。",
        ),
    ),
    nodes=(
        NodeSpec("node01"),
        NodeSpec("node02"),
        NodeSpec("node03"),
        NodeSpec("node04", labels={"pool": "build"}, taints=({"key": "pool", "value": "build", "effect": "NoSchedule"},),
                 images=("python:3.12",)),
        NodeSpec("node05", labels={"pool": "build"}, taints=({"key": "pool", "value": "build", "effect": "NoSchedule"},),
                 images=("mongo:8.0",)),
    ),
    # 4 CPU / 8Gi nodes: 800m and 4915Mi is 20% : 60%, 2 CPU and 4Gi is 50% : 50%, 4 CPU leaves nothing.
    fillers=(
        filler("load-node01", "node01", cpu="800m", memory="4915Mi"),
        filler("load-node02", "node02", cpu="2", memory="4Gi"),
        filler("load-node03", "node03", cpu="4", memory="1Gi"),
    ),
    follow="Pod/balanced",
)

DISK = "      volumes:\n      - name: data\n        gcePersistentDisk: {pdName: mysql-disk, fsType: ext4}\n"
PORTS_AND_DISKS = Lesson(
    "ports-and-disks", "7. Host ports and disk conflicts", "7. 主机端口冲突与磁盘冲突",
    deployment("myapp", 1, DISK, ports="          hostPort: 8080\n"),
    (
        Step(
            "myapp wants hostPort 8080 and mounts the GCE disk mysql-disk read-write. On node01 a Pod already "
            "holds port 8080; on node02 a Pod already mounts mysql-disk read-write.",
            "myapp 需要 hostPort 8080，并以读写方式挂载 GCE 磁盘 mysql-disk。node01 上已有 Pod 占用 8080 端口；"
            "node02 上已有 Pod 以读写方式挂载了 mysql-disk。",
            APPLY,
            question="Which node can take myapp?",
            question_zh="哪个节点能接收 myapp？",
        ),
        Step(
            "Only node03. node01 fails PodFitsHostPorts (NodePorts: \"didn't have free ports for the requested pod "
            "ports\"); node02 fails NoDiskConflict (VolumeRestrictions: \"had no available disk\"): a disk may be "
            "shared on a node only when every mount is read-only.",
            "只有 node03。node01 通不过 PodFitsHostPorts（NodePorts：没有空闲的 Pod 所需主机端口）；"
            "node02 通不过 NoDiskConflict（VolumeRestrictions：没有可用的磁盘）：只有都是只读挂载时才能共享同一块磁盘。",
        ),
        Step(
            "Scale myapp to 2.",
            "把 myapp 扩容到 2 个。",
            _scale("deployment/myapp", 2),
            question="Where does the second replica go?",
            question_zh="第二个副本会去哪里？",
        ),
        Step(
            "Nowhere yet: node03 now has both the port and the disk taken by the first replica, so the Pod is "
            "Pending with every node failing a predicate.",
            "暂时哪里都去不了：node03 的端口和磁盘已经被第一个副本占用，所有节点都通不过预选策略，Pod 处于 Pending。",
        ),
        Step(
            "Delete the Pod that holds mysql-disk on node02.",
            "删除 node02 上占用 mysql-disk 的 Pod。",
            Action("delete-pod", "pod/disk-holder", label="Delete pod disk-holder", label_zh="删除 Pod disk-holder"),
            question="What does the waiting replica do now?",
            question_zh="等待中的副本现在会怎样？",
        ),
        Step(
            "The deletion frees the disk on node02, and the scheduler retries the Pending Pod: node02 has port 8080 "
            "free and now the disk too, so the replica runs there.",
            "删除释放了 node02 上的磁盘，调度器重试 Pending 的 Pod：node02 的 8080 端口空闲，磁盘也空出来了，副本就在那里运行。",
        ),
    ),
    fillers=(
        filler("port-holder", "node01", image="nginx:1.27", ports=[{"containerPort": 80, "hostPort": 8080}]),
        filler("disk-holder", "node02", image="mysql:8.4", volumeMounts=[{"name": "data", "mountPath": "/var/lib/mysql"}],
               volumes=[{"name": "data", "gcePersistentDisk": {"pdName": "mysql-disk", "fsType": "ext4"}}]),
    ),
)

MYSQL_RC = """apiVersion: v1
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
"""
SCALE_AND_ROLLOUT = Lesson(
    "scale-and-rollout", "8. Scale 1 → 2 → 5 → 1, then a new image", "8. 扩缩容 1 → 2 → 5 → 1，再滚动更新镜像",
    MYSQL_RC + "---\n" + deployment("myapp", 3),
    (
        Step(
            "The seeds' example: a ReplicationController mysql with 1 replica, and the Deployment myapp with 3.",
            "教材中的例子：一个 1 个副本的 ReplicationController mysql，以及 3 个副本的 Deployment myapp。",
            APPLY,
        ),
        Step(
            "Why does the kubelet keep watching after the Pod runs? Scale the RC from 1 to 2 "
            "(kubectl scale rc mysql --replicas=2).",
            "Pod 运行之后 kubelet 为什么还要一直监听？把 RC 从 1 个扩容到 2 个（kubectl scale rc mysql --replicas=2）。",
            _scale("rc/mysql", 2),
            question="Which numbered hops will happen again?",
            question_zh="哪些编号的步骤会再走一遍？",
        ),
        Step(
            "The whole flow from hop 1 again for one new Pod: the replication controller sees 1 of 2, creates a "
            "Pod, the scheduler binds it, a kubelet starts it.",
            "从第 1 步起整个流程为新 Pod 再走一遍：ReplicationController 控制器发现只有 1/2 个副本，创建 Pod，调度器绑定，kubelet 启动。",
        ),
        Step("Scale to 5.", "扩容到 5 个。", _scale("rc/mysql", 5)),
        Step(
            "Scale down to 1.",
            "缩容到 1 个。",
            _scale("rc/mysql", 1),
            question="Which four Pods will the replication controller delete?",
            question_zh="ReplicationController 控制器会删除哪四个 Pod？",
        ),
        Step(
            "Scale down deletes the least established Pods first: not yet scheduled, then not ready, then the "
            "busiest nodes, the newest. One mysql Pod remains.",
            "缩容时先删“最不稳定”的 Pod：未调度的、未就绪的、所在节点 Pod 更多的、更新的。最后只剩一个 mysql Pod。",
        ),
        Step(
            "The image is upgraded: set myapp's image to soscscs/myapp:v2.",
            "镜像升级：把 myapp 的镜像改成 soscscs/myapp:v2。",
            Action("set-image", "deployment/myapp", "myapp=soscscs/myapp:v2", label="Set image soscscs/myapp:v2",
                   label_zh="把镜像改为 soscscs/myapp:v2"),
            question="Will all three Pods stop at once?",
            question_zh="三个 Pod 会同时停掉吗？",
        ),
        Step(
            "No: a rolling update. The Deployment makes a new ReplicaSet and moves replicas over a few at a time "
            "(maxSurge 25%, maxUnavailable 25%); each kubelet pulls the new image and starts it. kubectl get rs "
            "shows the old ReplicaSet at 0 and the new one at 3.",
            "不会：这是滚动更新。Deployment 新建一个 ReplicaSet，每次只替换一部分副本（maxSurge 25%、maxUnavailable 25%）；"
            "kubelet 拉取新镜像并启动。kubectl get rs 显示旧 ReplicaSet 为 0，新的为 3。",
        ),
    ),
    follow="ReplicationController/mysql",
)

NODE_FAILURE = Lesson(
    "node-failure", "9. A node fails", "9. 节点故障",
    deployment("myapp", 3),
    (
        Step(
            "Three replicas, one per node. This lesson's timings are short: heartbeats every 2 s, a node is "
            "declared unreachable after 8 s without one (nodeMonitorGracePeriod, 40 s by default), and Pods "
            "tolerate that for 5 s (tolerationSeconds, 300 s by default).",
            "三个副本，每个节点一个。本课的时间参数很短：每 2 秒一次心跳，8 秒没有心跳就判定节点失联（nodeMonitorGracePeriod，"
            "默认 40 秒），Pod 容忍 5 秒（tolerationSeconds，默认 300 秒）。",
            APPLY,
        ),
        Step(
            "node02 goes down: stop its kubelet. Switch to live mode to let the seconds pass.",
            "node02 宕机：停止它的 kubelet。切换到实时模式，让时间流逝。",
            _kubelet("node02"),
            question="Nobody tells the control plane that node02 died. How will it notice?",
            question_zh="没有人告诉控制平面 node02 挂了。它怎么发现？",
        ),
        Step(
            "The node controller in the controller manager watches the kubelets' heartbeats (Leases). After the "
            "grace period it marks node02 NotReady (NodeNotReady), its Pods not ready, and taints it "
            "node.kubernetes.io/unreachable:NoExecute.",
            "控制器管理器中的节点控制器一直在检查 kubelet 的心跳（租约）。宽限期过后它把 node02 标记为 "
            "NotReady（NodeNotReady），把上面的 Pod 标记为未就绪，并打上污点 node.kubernetes.io/unreachable:NoExecute。",
            question="What happens to the Pod on node02 when its tolerationSeconds run out?",
            question_zh="node02 上的 Pod 容忍时间到了之后会怎样？",
        ),
        Step(
            "It is evicted (TaintManagerEviction), its ReplicaSet sees 2 of 3 and creates a replacement, and the "
            "scheduler puts it on node01 or node03: the Pods are recreated elsewhere, as the seeds' Node Controller "
            "\"repairs\" a failure.",
            "它被驱逐（TaintManagerEviction），ReplicaSet 发现只有 2/3 个副本，创建一个替代 Pod，调度器把它放到 node01 或 "
            "node03：Pod 在其他节点上重建，这就是教材中节点控制器的“修复流程”。",
        ),
        Step(
            "Start node02's kubelet again: the node is Ready and untainted, but nothing moves back.",
            "重新启动 node02 的 kubelet：节点恢复 Ready、污点被移除，但 Pod 不会自动迁回。",
            _kubelet("node02", start=True),
        ),
    ),
    timings=FAST_FAILURE,
)

SERVICE = Lesson(
    "service", "10. A Service and its endpoints", "10. Service 与 Endpoints",
    deployment("myapp", 3) + """---
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
    (
        Step(
            "A Service is a stable entry point (a cluster IP and port) for the Pods its selector app=myapp picks. "
            "The endpoints controller keeps the Endpoints myapp listing exactly the Ready ones.",
            "Service 是一组 Pod 的稳定入口（集群 IP 加端口），用标签选择器 app=myapp 选中 Pod。"
            "Endpoints 控制器让 Endpoints myapp 只列出其中 Ready 的 Pod。",
            Action("apply", "myapp.yaml", label="Apply myapp.yaml (Deployment and Service)",
                   label_zh="应用 myapp.yaml（Deployment 与 Service）"),
            question="How many addresses will kubectl get endpoints myapp show, and when?",
            question_zh="kubectl get endpoints myapp 会显示几个地址？什么时候出现？",
        ),
        Step(
            "Three, each added when its Pod becomes Ready (after hop 13), not when it is created.",
            "三个，每个都在对应的 Pod Ready 之后（第 13 步之后）才加入，而不是在创建时。",
        ),
        Step("Scale myapp to 5.", "把 myapp 扩容到 5 个。", _scale("deployment/myapp", 5),
             question="The Service was not touched. Does it see the new Pods?",
             question_zh="Service 本身没有改动。它能看到新的 Pod 吗？"),
        Step(
            "Yes: the endpoints follow the label selector, so five addresses.",
            "能：Endpoints 跟着标签选择器走，现在有五个地址。",
        ),
        Step(
            "Now node03 fails: stop its kubelet (this lesson's timings are short; use live mode).",
            "现在 node03 故障：停止它的 kubelet（本课时间参数很短，用实时模式）。",
            _kubelet("node03"),
            question="What happens to node03's addresses?",
            question_zh="node03 上的地址会怎样？",
        ),
        Step(
            "Once node03 is NotReady its Pods are not ready, and the endpoints controller moves their addresses to "
            "notReadyAddresses; after eviction the replacements on the other nodes join as they become Ready.",
            "node03 变为 NotReady 后，上面的 Pod 也不再就绪，Endpoints 控制器把它们的地址移到 notReadyAddresses；"
            "驱逐之后，其他节点上的替代 Pod 一旦 Ready 就加入。",
        ),
        Step("Scale down to 2.", "缩容到 2 个。", _scale("deployment/myapp", 2)),
    ),
    timings=FAST_FAILURE,
)

LESSONS: tuple[Lesson, ...] = (
    CREATION_FLOW, NODE_NAME, NODE_SELECTOR, NODE_AFFINITY, POD_AFFINITY, RESOURCES, PORTS_AND_DISKS,
    SCALE_AND_ROLLOUT, NODE_FAILURE, SERVICE, DAEMON_SETS, CRASH_LOOP,
    JOBS, STATEFUL_SETS,
    PREEMPTION,
    DRAIN, AUTOSCALING,
    STORAGE,
    CUSTOM_RESOURCES,
)
