"""The storage lesson: a claim bound where its Pod lands, a volume that keeps its Pod on its node or in its zone,
and a ReadWriteOncePod claim that serves one Pod at a time."""

from __future__ import annotations

from .script import Action, Lesson, NodeSpec, Step

ZONE = "topology.kubernetes.io/zone"

DATA = """apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: data
spec:
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 1Gi
"""

DB = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: db
spec:
  replicas: 1
  strategy:
    type: Recreate
  selector:
    matchLabels:
      app: db
  template:
    metadata:
      labels:
        app: db
    spec:
      containers:
      - name: postgres
        image: postgres:16
        env:
        - name: POSTGRES_PASSWORD
          value: example
        volumeMounts:
        - name: data
          mountPath: /var/lib/postgresql/data
      volumes:
      - name: data
        persistentVolumeClaim:
          claimName: data
"""

PHOTOS = """apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: photos
spec:
  storageClassName: fast
  accessModes: [ReadWriteOnce]
  resources:
    requests:
      storage: 5Gi
"""

GALLERY = """apiVersion: v1
kind: Pod
metadata:
  name: gallery
spec:
  containers:
  - name: nginx
    image: nginx:1.27
    volumeMounts:
    - name: photos
      mountPath: /usr/share/nginx/html
  volumes:
  - name: photos
    persistentVolumeClaim:
      claimName: photos
"""


def _ledger_pod(name: str) -> str:
    return f"""apiVersion: v1
kind: Pod
metadata:
  name: {name}
spec:
  containers:
  - name: writer
    image: busybox:1.36
    command: ["sh", "-c", "while true; do date >> /ledger/log; sleep 10; done"]
    volumeMounts:
    - name: ledger
      mountPath: /ledger
  volumes:
  - name: ledger
    persistentVolumeClaim:
      claimName: ledger
"""


LEDGER = """apiVersion: v1
kind: PersistentVolumeClaim
metadata:
  name: ledger
spec:
  accessModes: [ReadWriteOncePod]
  resources:
    requests:
      storage: 1Gi
---
""" + _ledger_pod("ledger-a") + "---\n" + _ledger_pod("ledger-b")


def _apply(file: str, manifest: str) -> Action:
    return Action("apply", file, label=f"Apply {file}", label_zh=f"应用 {file}（kubectl apply）", manifest=manifest)


STORAGE = Lesson(
    "storage", "18. Storage: the Pod goes where its volume is", "18. 存储：卷在哪里，Pod 就去哪里",
    # The editor's preset: the claim and the Deployment that mounts it; the buttons apply them one at a time.
    DATA + "---\n" + DB,
    (
        Step(
            "Four empty nodes in two zones (label topology.kubernetes.io/zone): node01 and node02 in zone-a, node03 "
            "and node04 in zone-b. data.yaml is a PersistentVolumeClaim data asking for 1Gi, ReadWriteOnce. It names "
            "no StorageClass, so it gets the default class standard, whose volumeBindingMode is WaitForFirstConsumer.",
            "四个空节点，分布在两个可用区（标签 topology.kubernetes.io/zone）：node01 和 node02 在 zone-a，node03 和 "
            "node04 在 zone-b。data.yaml 是一个 PersistentVolumeClaim（持久卷申领）data，申请 1Gi、ReadWriteOnce。"
            "它没有指定 StorageClass（存储类），所以得到默认的存储类 standard，其 volumeBindingMode 是 WaitForFirstConsumer。",
            _apply("data.yaml", DATA),
            question="kubectl get pvc data: will the claim be Bound to a volume at once?",
            question_zh="kubectl get pvc data：这个申领会立即 Bound 到一个卷上吗？",
        ),
        Step(
            "No, it stays Pending, and kubectl describe pvc data says why in its event WaitForFirstConsumer: "
            "\"waiting for first consumer to be created before binding\". A volume made now would sit on some node, "
            "and a Pod using it could then run only there, whatever else it needs. So the claim waits for its first "
            "Pod, and for the scheduler's choice of node.",
            "不会，它保持 Pending。kubectl describe pvc data 的事件 WaitForFirstConsumer 说明了原因：等第一个使用者创建后"
            "再绑定。现在就创建卷，卷会落在某个节点上，以后使用它的 Pod 就只能在那里运行，不管 Pod 还需要什么。"
            "所以申领要等第一个使用它的 Pod，等调度器为 Pod 选好节点。",
            question="A Deployment db will mount the claim. Who decides where its volume is made?",
            question_zh="Deployment db 将挂载这个申领。由谁决定它的卷建在哪里？",
        ),
        Step(
            "The scheduler. db.yaml is a Deployment db with one replica of postgres:16 that mounts the claim data "
            "(strategy Recreate: an update stops the old Pod before the new one starts). At hop 9 open the Pod's "
            "scoring panel: VolumeBinding passes every node, since the class standard can provision a volume on any "
            "of them, and the usual scores pick one.",
            "调度器。db.yaml 是 Deployment db：一个 postgres:16 副本，挂载申领 data（strategy.type 为 Recreate：更新时先停掉旧 "
            "Pod，再启动新的）。到第 9 步时点开 Pod 的打分面板：VolumeBinding 让每个节点都通过，因为存储类 standard "
            "在哪个节点上都能制备卷，再由平常的打分选出一个节点。",
            _apply("db.yaml", DB),
        ),
        Step(
            "Before binding the Pod, VolumeBinding writes the chosen node into the claim's annotation "
            "volume.kubernetes.io/selected-node and waits. The claim's events go on: ExternalProvisioning, then the "
            "provisioner hostpath.csi.clusterviz.io makes the volume pvc-<claim uid> (ProvisioningSucceeded), reachable "
            "from that node only: kubectl describe pv shows its Node Affinity, kubernetes.io/hostname in [the node]. "
            "Claim and volume are Bound, the Pod is bound, and kubectl describe pod lists the volume (ClaimName: data).",
            "在绑定 Pod 之前，VolumeBinding 先把选中的节点写进申领的注解 volume.kubernetes.io/selected-node，然后等待。"
            "申领的事件接着出现：ExternalProvisioning，然后制备程序 hostpath.csi.clusterviz.io 创建卷 pvc-<申领的 UID>"
            "（ProvisioningSucceeded），只有那个节点能访问它：kubectl describe pv 显示它的节点亲和性是 "
            "kubernetes.io/hostname 在 [该节点] 中。申领和卷都变为 Bound，Pod 完成绑定，kubectl describe pod 在卷一栏列出它"
            "（ClaimName: data）。",
        ),
        Step(
            "Upgrade the database: set db's image to postgres:17. With strategy Recreate the Deployment scales the old "
            "ReplicaSet to 0, waits until its Pod is gone, then creates the new ReplicaSet's Pod, which the scheduler "
            "places afresh.",
            "升级数据库：把 db 的镜像改为 postgres:17。strategy.type 为 Recreate 时，Deployment 先把旧 ReplicaSet 缩容到 0，"
            "等它的 Pod 完全消失，再创建新 ReplicaSet 的 Pod，由调度器重新安排。",
            Action("set-image", "deployment/db", "postgres=postgres:17", label="Set image postgres:17",
                   label_zh="把镜像改为 postgres:17"),
            question="Four nodes are free. Where will the new Pod go?",
            question_zh="四个节点都有空。新的 Pod 会去哪里？",
        ),
        Step(
            "Back to the same node, and nowhere else: the claim is Bound to a volume whose node affinity names that "
            "node. In the new Pod's scoring panel VolumeBinding fails on the three others with \"node(s) didn't match "
            "PersistentVolume's node affinity\" (clusters before v1.33 say \"node(s) had volume node affinity "
            "conflict\"). The data does not follow the Pod: the Pod follows its data.",
            "回到同一个节点，别处都不行：申领已 Bound 到一个卷，而卷的节点亲和性只写了那个节点。在新 Pod 的打分面板里，"
            "另外三个节点的 VolumeBinding 都失败：节点不满足持久卷的节点亲和性（v1.33 之前的集群说"
            "卷节点亲和性冲突）。数据不会跟着 Pod 走，而是 Pod 跟着数据走。",
        ),
        Step(
            "photos.yaml is a claim photos of the class fast, whose volumeBindingMode is Immediate and whose volumes "
            "reach every node of one zone.",
            "photos.yaml 是存储类 fast 的申领 photos：fast 的 volumeBindingMode 是 Immediate，它的卷能被一个可用区里的"
            "所有节点访问。",
            _apply("photos.yaml", PHOTOS),
            question="No Pod uses photos yet. Will it wait like data?",
            question_zh="还没有 Pod 使用 photos。它会像 data 一样等待吗？",
        ),
        Step(
            "No: it is provisioned at once (ExternalProvisioning, ProvisioningSucceeded) and Bound without waiting for "
            "a Pod. The provisioner picked a node, and the volume reaches that node's zone: kubectl describe pv shows "
            "Node Affinity topology.kubernetes.io/zone in [zone-a] or [zone-b].",
            "不会：它立即被制备（ExternalProvisioning、ProvisioningSucceeded），不等任何 Pod 就已 Bound。"
            "制备程序选了一个节点，卷能被该节点所在的可用区访问：kubectl describe pv 显示节点亲和性为 "
            "topology.kubernetes.io/zone 在 [zone-a] 或 [zone-b] 中。",
        ),
        Step(
            "gallery.yaml is a Pod gallery that serves the photos with nginx.",
            "gallery.yaml 是一个用 nginx 提供这些照片的 Pod gallery。",
            _apply("gallery.yaml", GALLERY),
            question="Which nodes can gallery go to?",
            question_zh="gallery 可以去哪些节点？",
        ),
        Step(
            "Only the two nodes of the volume's zone; the scores chose between them. Click gallery on the map to follow "
            "its story and go Back to its hop 9: the lanes of the other zone show VolumeBinding's \"node(s) didn't "
            "match PersistentVolume's node affinity\". VolumeZone is skipped: it reads zone labels on the "
            "PersistentVolume itself, and a CSI driver's volumes carry none. (Had gallery come before photos was "
            "Bound, its first attempt would have failed everywhere with \"pod has unbound immediate "
            "PersistentVolumeClaims\", and the claim's binding would have brought it back.)",
            "只有卷所在可用区的两个节点，在这两个之间由打分决定。点击地图上的 gallery，跟着它的步骤走，再后退到它的第 9 步："
            "另一个可用区的节点栏显示 VolumeBinding 的结论：不满足持久卷的节点亲和性。VolumeZone 被跳过："
            "它读取 PersistentVolume 自身的可用区标签，而 CSI 驱动制备的卷没有这些标签。（如果 gallery 在 photos Bound 之前就来了，"
            "它的第一次调度会在所有节点上失败：Pod 有未绑定的 Immediate 模式持久卷申领；等申领绑定后它会被重新调度。）",
        ),
        Step(
            "ledger.yaml: a claim ledger with access mode ReadWriteOncePod (one Pod in the whole cluster may use it), "
            "and two Pods, ledger-a and ledger-b, that both mount it.",
            "ledger.yaml：一个访问模式为 ReadWriteOncePod 的申领 ledger（整个集群中只能有一个 Pod 使用它），以及两个都挂载"
            "它的 Pod：ledger-a 和 ledger-b。",
            _apply("ledger.yaml", LEDGER),
            question="Will both Pods run?",
            question_zh="两个 Pod 都能运行吗？",
        ),
        Step(
            "ledger-a is scheduled and its volume provisioned on its node. ledger-b stays Pending: VolumeRestrictions "
            "fails on every node with \"node has pod using PersistentVolumeClaim with the same name and "
            "ReadWriteOncePod access mode\" (kubectl describe pod ledger-b, FailedScheduling), and preemption finds "
            "no victim, since ledger-a's priority is not lower. ReadWriteOnce would have let both run on one node.",
            "ledger-a 被调度，它的卷制备在它所在的节点上。ledger-b 保持 Pending：VolumeRestrictions 在每个节点上都失败："
            "节点上已有 Pod 以 ReadWriteOncePod 访问模式使用同名的 PersistentVolumeClaim（kubectl describe pod ledger-b，事件 FailedScheduling）；"
            "抢占也找不到牺牲者，因为 ledger-a 的优先级并不更低。如果是 ReadWriteOnce，两个 Pod 可以在同一节点上一起运行。",
        ),
        Step(
            "Delete the Pod ledger-a, which holds the claim.",
            "删除占用这个申领的 Pod ledger-a。",
            Action("delete-pod", "pod/ledger-a", label="Delete pod ledger-a", label_zh="删除 Pod ledger-a"),
            question="Where will ledger-b go?",
            question_zh="ledger-b 会去哪里？",
        ),
        Step(
            "The deletion requeues ledger-b, and it runs on ledger-a's node: the claim is free again, and its volume, "
            "made for ledger-a's node, admits no other.",
            "这次删除让 ledger-b 重新进入调度队列，它在 ledger-a 原来的节点上运行：申领空出来了，而它的卷是为 ledger-a "
            "的节点制备的，不接受别的节点。",
        ),
    ),
    nodes=(
        NodeSpec("node01", labels={ZONE: "zone-a"}),
        NodeSpec("node02", labels={ZONE: "zone-a"}),
        NodeSpec("node03", labels={ZONE: "zone-b"}),
        NodeSpec("node04", labels={ZONE: "zone-b"}),
    ),
    follow="Deployment/db",
)
