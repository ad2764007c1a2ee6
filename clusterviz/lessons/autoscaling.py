"""The autoscaling lesson: a HorizontalPodAutoscaler follows the load knob from 2 replicas to 6 and back."""

from __future__ import annotations

from .manifests import IMAGE
from .script import Action, Lesson, Step

WEB = f"""apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
spec:
  replicas: 2
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: web
        image: {IMAGE}
        resources:
          requests:
            cpu: 100m
---
apiVersion: autoscaling/v2
kind: HorizontalPodAutoscaler
metadata:
  name: web
spec:
  scaleTargetRef:
    apiVersion: apps/v1
    kind: Deployment
    name: web
  minReplicas: 2
  maxReplicas: 6
  metrics:
  - type: Resource
    resource:
      name: cpu
      target:
        type: Utilization
        averageUtilization: 50
"""

AUTOSCALING = Lesson(
    "autoscaling", "17. A HorizontalPodAutoscaler follows the load", "17. HorizontalPodAutoscaler 跟随负载扩缩容",
    WEB,
    (
        Step(
            "The Deployment web runs 2 replicas, each requesting 100m of CPU. The HorizontalPodAutoscaler web keeps "
            "their average CPU use near 50% of that request, with 2 to 6 replicas.",
            "Deployment web 运行 2 个副本，每个请求 100m CPU。HorizontalPodAutoscaler（水平自动扩缩）web 让它们的"
            "平均 CPU 使用量保持在请求的 50% 左右，副本数在 2 到 6 之间。",
            Action("apply", "web.yaml", label="Apply web.yaml", label_zh="应用 web.yaml（kubectl apply）"),
            question="Where does the autoscaler read the Pods' CPU use from?",
            question_zh="自动扩缩器从哪里读取 Pod 的 CPU 使用量？",
        ),
        Step(
            "From metrics.k8s.io, as kubectl top pods does. Every 15 seconds the controller manager's autoscaler reads "
            "it and writes what it saw: kubectl get hpa web shows TARGETS cpu: 1%/50%, and nothing changes, since "
            "idle Pods are far below the target.",
            "从 metrics.k8s.io 读取，和 kubectl top pods 一样。控制器管理器中的自动扩缩器每 15 秒读取一次并写下看到的"
            "数值：kubectl get hpa web 的 TARGETS 显示 cpu: 1%/50%；空闲的 Pod 远低于目标，所以什么也不变。",
            question="The shop gets busy: its Pods use 600m together. How many replicas does 50% want?",
            question_zh="业务繁忙起来：这些 Pod 一共使用 600m。按 50% 的目标需要几个副本？",
        ),
        Step(
            "The load knob (the annotation clusterviz.io/load) is the CPU the Running Pods share: 300m each, 300% of "
            "the request, six times the target. The autoscaler wants ceil(2 x 300 / 50) = 12, but it doubles at most "
            "per sync: New size: 4, then 6, the maximum (ScalingLimited: TooManyReplicas). Each new Pod takes a share "
            "of the same load, so the use per Pod falls.",
            "负载旋钮（注解 clusterviz.io/load）是 Running 状态的 Pod 共同使用的 CPU：每个 300m，是请求的 300%、"
            "目标的 6 倍。自动扩缩器想要 2 × 300 / 50 = 12 个副本（向上取整），但每次同步最多翻倍：先扩容到 4，再到上限 6"
            "（ScalingLimited: TooManyReplicas）。每个新 Pod 分担同样的负载，所以每个 Pod 的使用量下降。",
            Action("set-load", "deployment/web", "600m", label="Set the load to 600m",
                   label_zh="把负载设为 600m（kubectl annotate）"),
            question="The load drops to 100m. Does the autoscaler scale down at once?",
            question_zh="负载降到 100m。自动扩缩器会立即缩容吗？",
        ),
        Step(
            "No: 100m over 6 Pods is about 16% and recommends 2, but a scale-down waits for the stabilisation window "
            "(300 seconds): the autoscaler applies the highest recommendation of the last 5 minutes "
            "(AbleToScale: ScaleDownStabilized), so a short dip does not remove Pods it needs again soon. After the "
            "window it scales down to 2 at once, the minimum: \"All metrics below target\".",
            "不会：100m 分给 6 个 Pod，大约 16%，建议 2 个副本；但缩容要等稳定窗口（300 秒）：自动扩缩器采用最近 5 分钟"
            "内最高的建议值（AbleToScale: ScaleDownStabilized），这样短暂的低谷不会删掉很快又需要的 Pod。窗口过后它一次"
            "缩容到下限 2，原因是所有指标都低于目标。",
            Action("set-load", "deployment/web", "100m", label="Set the load to 100m",
                   label_zh="把负载设为 100m（kubectl annotate）"),
            question="kubectl describe hpa web: which events tell the story?",
            question_zh="kubectl describe hpa web：哪些事件讲述了这个过程？",
        ),
    ),
    follow="Deployment/web",
)
