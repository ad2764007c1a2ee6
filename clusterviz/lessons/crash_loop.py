"""The crash lesson: a Pod whose process fails restarts, waits longer each time, and its logs say why;
then a Pod whose readiness probe fails is not restarted but taken out of its Service."""

from __future__ import annotations

from .script import Action, Lesson, Step

CRASHER = """apiVersion: v1
kind: Pod
metadata:
  name: crasher
  labels:
    app: crasher
spec:
  containers:
  - name: app
    image: busybox
    command: ["sh", "-c"]
    args:
    - 'echo "starting the shop"; sleep 3; echo "error: config file /etc/shop.conf not found"; exit 1'
"""

SHOP_POD = """apiVersion: v1
kind: Pod
metadata:
  name: {name}
  labels:
    app: shop
spec:
  containers:
  - name: web
    image: nginx
    ports:
    - containerPort: 80
    readinessProbe:
      httpGet:
        path: /
        port: 80
      periodSeconds: 5
"""

SHOP = "\n---\n".join([
    SHOP_POD.format(name="shop-1"),
    SHOP_POD.format(name="shop-2"),
    """apiVersion: v1
kind: Service
metadata:
  name: shop
spec:
  selector:
    app: shop
  ports:
  - port: 80
""",
])

PROBE_FAIL = "clusterviz.io/probe-fail"

CRASH_LOOP = Lesson(
    "crash-loop", "12. Crashes and readiness: restarts, back-off, logs and probes",
    "12. 崩溃与就绪：重启、退避、日志与探针",
    CRASHER,
    (
        Step(
            "The Pod crasher runs a small script: it prints a line, works for 3 seconds, then fails with exit code 1. "
            "Its restartPolicy is Always, the default.",
            "Pod crasher 运行一个小脚本：先输出一行，工作 3 秒，然后以退出码 1 失败。它的 restartPolicy 是默认值：总是重启。",
            Action("apply", "crasher.yaml", label="Apply crasher.yaml", label_zh="应用 crasher.yaml（kubectl apply）"),
            question="The container exits. What does the kubelet do, and how often?",
            question_zh="容器退出了。kubelet 会怎么做？多久做一次？",
        ),
        Step(
            "It restarts the container at once the first time, then waits 10 s, 20 s, 40 s ... (at most 5 minutes) "
            "between restarts: kubectl get pods shows STATUS CrashLoopBackOff and the RESTARTS count growing, and "
            "the Pod's events say \"Back-off restarting failed container\". The Pod stays on its node; only the "
            "container is started again.",
            "第一次立即重启容器，之后每次重启前分别等待 10 秒、20 秒、40 秒……（最多 5 分钟）：kubectl get pods 显示 "
            "STATUS 为 CrashLoopBackOff，RESTARTS 不断增加，Pod 的事件说明 kubelet 正在退避、稍后再重启失败的容器。"
            "Pod 留在原来的节点上，只是容器被再次启动。",
            question="Where do we look to find out why it fails?",
            question_zh="要知道它为什么失败，应该看哪里？",
        ),
        Step(
            "In its logs: kubectl logs crasher prints what the container printed, \"error: config file "
            "/etc/shop.conf not found\"; kubectl logs crasher --previous shows the run before the last restart, and "
            "kubectl describe pod crasher shows Last State: Terminated, Reason: Error, Exit Code: 1. (Click the Pod: "
            "its describe panel ends with the same log lines.)",
            "看它的日志：kubectl logs crasher 输出容器打印的内容，说找不到配置文件 /etc/shop.conf；"
            "kubectl logs crasher --previous 显示上一次重启前那一次运行的日志；kubectl describe pod crasher 显示"
            "上一次的状态：已终止，原因 Error，退出码 1。（点击这个 Pod：它的描述面板最后也有这些日志。）",
        ),
        Step(
            "Delete the Pod (kubectl delete pod crasher): a bare Pod has no controller, so nothing replaces it.",
            "删除这个 Pod（kubectl delete pod crasher）：单独的 Pod 没有控制器，所以不会有新的 Pod 替代它。",
            Action("delete-pod", "pod/crasher", label="Delete pod crasher", label_zh="删除 Pod crasher"),
        ),
        Step(
            "A Pod can also run and still not be fit for traffic. shop.yaml makes two nginx Pods, shop-1 and shop-2, "
            "each with a readinessProbe (an HTTP GET of / every 5 seconds), and a Service shop that selects them.",
            "Pod 也可能在运行，却还不能接收流量。shop.yaml 创建两个 nginx Pod：shop-1 和 shop-2，每个都有 "
            "readinessProbe（就绪探针：每 5 秒对 / 发一次 HTTP GET），以及选择它们的 Service shop。",
            Action("apply", "shop.yaml", label="Apply shop.yaml", label_zh="应用 shop.yaml（kubectl apply）", manifest=SHOP),
            question="When is a Pod counted as one of the Service's addresses?",
            question_zh="Pod 什么时候才算 Service 的一个地址？",
        ),
        Step(
            "Once its readiness probe passes: both show READY 1/1, and kubectl get endpoints shop lists both Pod IPs. "
            "Now make shop-2's readiness probe fail (the annotation stands for an app that stops answering).",
            "就绪探针通过之后：两个 Pod 都显示 READY 1/1，kubectl get endpoints shop 列出两个 Pod IP。"
            "现在让 shop-2 的就绪探针失败（这个注解代表一个不再响应请求的应用）。",
            Action("annotate", "pod/shop-2", f"{PROBE_FAIL}=readiness", label="Make shop-2's readiness probe fail",
                   label_zh="让 shop-2 的就绪探针失败"),
            question="Is shop-2's container restarted? What happens to the Service?",
            question_zh="shop-2 的容器会被重启吗？Service 会怎样？",
        ),
        Step(
            "No restart: a failing readiness probe only makes the Pod unready. kubectl get pods shows shop-2 READY "
            "0/1 with RESTARTS 0 and an Unhealthy event \"Readiness probe failed: ...\"; the endpoints controller "
            "moves its address to notReadyAddresses, so the Service sends its traffic to shop-1 alone. (A failing "
            "liveness probe would restart the container instead.) Let the probe pass again.",
            "不会重启：就绪探针失败只会让 Pod 变为未就绪。kubectl get pods 显示 shop-2 为 READY 0/1、RESTARTS 0，"
            "并有一个 Unhealthy 事件，说明就绪探针失败；Endpoints 控制器把它的地址移到 notReadyAddresses，"
            "于是 Service 只把流量发给 shop-1。（如果是存活探针失败，容器就会被重启。）现在让探针重新通过。",
            Action("annotate", "pod/shop-2", f"{PROBE_FAIL}-", label="Make shop-2's readiness probe pass",
                   label_zh="让 shop-2 的就绪探针重新通过"),
        ),
        Step(
            "At the next probe shop-2 is READY 1/1 again and its address is back in the Service's endpoints: "
            "readiness decides who gets traffic, liveness decides who gets restarted.",
            "下一次探测时 shop-2 又是 READY 1/1，它的地址回到了 Service 的 Endpoints 中："
            "就绪探针决定谁接收流量，存活探针决定谁被重启。",
        ),
    ),
)
