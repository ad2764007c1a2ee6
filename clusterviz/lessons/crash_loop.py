"""The crash lesson: a Pod whose process fails restarts, waits longer each time, and its logs say why."""

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

CRASH_LOOP = Lesson(
    "crash-loop", "12. A crashing Pod: restarts, back-off and logs", "12. 崩溃的 Pod：重启、退避与日志",
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
    ),
)
