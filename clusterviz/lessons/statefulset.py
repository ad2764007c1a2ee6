"""The StatefulSet lesson: Pods with stable names made one at a time, in order, and removed in reverse."""

from __future__ import annotations

from .script import Action, Lesson, Step

WEB = """apiVersion: v1
kind: Service
metadata:
  name: nginx
  labels:
    app: nginx
spec:
  clusterIP: None
  selector:
    app: nginx
  ports:
  - name: web
    port: 80
---
apiVersion: apps/v1
kind: StatefulSet
metadata:
  name: web
spec:
  serviceName: nginx
  replicas: 3
  selector:
    matchLabels:
      app: nginx
  template:
    metadata:
      labels:
        app: nginx
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
        ports:
        - name: web
          containerPort: 80
"""


def _scale(replicas: int) -> Action:
    return Action("scale", "statefulset/web", str(replicas), label=f"Scale statefulset/web to {replicas}",
                  label_zh=f"把 statefulset/web 扩缩到 {replicas} 个副本")


STATEFUL_SETS = Lesson(
    "statefulset", "14. StatefulSet: stable names, in order", "14. StatefulSet：稳定的名字，按顺序来",
    WEB,
    (
        Step(
            "A database or a queue needs to know which member is which. A StatefulSet web gives its Pods fixed "
            "names instead of random ones, and the headless Service nginx (clusterIP: None) gives each of them a "
            "DNS name. Apply both: 3 replicas of nginx.",
            "数据库或消息队列需要分清每个成员。StatefulSet web 给它的 Pod 固定的名字而不是随机的名字，"
            "无头 Service nginx（clusterIP: None）再给每个 Pod 一个 DNS 名称。应用这两个对象：3 个 nginx 副本。",
            Action("apply", "web.yaml", label="Apply web.yaml (Service and StatefulSet)",
                   label_zh="应用 web.yaml（Service 与 StatefulSet）"),
            question="What will the three Pods be called, and will they start all at once?",
            question_zh="三个 Pod 会叫什么名字？它们会同时启动吗？",
        ),
        Step(
            "web-0, web-1, web-2, one at a time: with podManagementPolicy OrderedReady (the default) the "
            "StatefulSet controller creates web-1 only once web-0 is Running and Ready, and web-2 after web-1. "
            "Follow web-0's hops; the others wait for it.",
            "web-0、web-1、web-2，一个接一个：podManagementPolicy 默认为 OrderedReady，StatefulSet 控制器要等 "
            "web-0 Running 且 Ready 之后才创建 web-1，web-1 就绪后才创建 web-2。跟着 web-0 的步骤走，其他 Pod 都在等它。",
        ),
        Step(
            "Each Pod's hostname is its name and its subdomain is the serviceName, so it is "
            "web-0.nginx.default.svc.cluster.local inside the cluster: kubectl get endpoints nginx -o yaml lists "
            "each address with its hostname.",
            "每个 Pod 的 hostname 就是它的名字，subdomain 是 serviceName，所以在集群内它的 DNS 名称是 "
            "web-0.nginx.default.svc.cluster.local：kubectl get endpoints nginx -o yaml 列出每个地址和它的 hostname。",
        ),
        Step(
            "Scale web to 5.",
            "把 web 扩容到 5 个。",
            _scale(5),
            question="What are the new Pods called, and in which order do they come?",
            question_zh="新的 Pod 叫什么名字？按什么顺序出现？",
        ),
        Step(
            "web-3, then web-4 once web-3 is Ready: the next free ordinals, in order.",
            "web-3，等 web-3 就绪后再是 web-4：依次使用下一个序号。",
        ),
        Step(
            "Scale down to 2.",
            "缩容到 2 个。",
            _scale(2),
            question="Which three Pods go, and in what order?",
            question_zh="哪三个 Pod 会被删除？按什么顺序？",
        ),
        Step(
            "The highest ordinal first, one at a time: web-4, then web-3 once web-4 is gone, then web-2. "
            "web-0 and web-1 stay. (A Deployment would pick its victims by readiness and age instead.)",
            "从序号最大的开始，一次一个：先删 web-4，web-4 完全消失后再删 web-3，然后是 web-2。"
            "web-0 和 web-1 保留。（Deployment 则按就绪状态和创建时间挑选要删除的 Pod。）",
        ),
        Step(
            "Delete the Pod web-0.",
            "删除 Pod web-0。",
            Action("delete-pod", "pod/web-0", label="Delete pod web-0", label_zh="删除 Pod web-0"),
            question="What will the replacement be called?",
            question_zh="替代它的 Pod 会叫什么名字？",
        ),
        Step(
            "web-0 again, with the same DNS name: a StatefulSet's Pod keeps its identity when it is replaced, "
            "perhaps on another node and with a new IP address.",
            "还是 web-0，DNS 名称也不变：StatefulSet 的 Pod 被替换后仍保留原来的身份，只是可能在另一个节点上，IP 地址也可能不同。",
        ),
    ),
    follow="StatefulSet/web",
)
