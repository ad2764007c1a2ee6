"""The Job lesson: Pods that run to completion, a failing Job's retries up to its backoffLimit, and a CronJob."""

from __future__ import annotations

from .script import Action, Lesson, Step

COUNT = """apiVersion: batch/v1
kind: Job
metadata:
  name: count
spec:
  completions: 3
  parallelism: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: count
        image: busybox
        command: ["sh", "-c", "echo counting; sleep 5; echo done"]
"""

FLAKY = """apiVersion: batch/v1
kind: Job
metadata:
  name: flaky
spec:
  backoffLimit: 2
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: flaky
        image: busybox
        command: ["sh", "-c", "echo cannot reach the database; exit 1"]
"""

TICK = """apiVersion: batch/v1
kind: CronJob
metadata:
  name: tick
spec:
  schedule: "*/1 * * * *"
  successfulJobsHistoryLimit: 2
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: OnFailure
          containers:
          - name: tick
            image: busybox
            command: ["sh", "-c", "date; sleep 3"]
"""

JOBS = Lesson(
    "jobs", "13. Jobs and CronJobs: Pods that finish", "13. Job 与 CronJob：会结束的 Pod",
    COUNT,
    (
        Step(
            "A Deployment's Pods serve for ever; a Job's Pods do a piece of work and end. The Job count wants "
            "completions: 3 (three Pods that exit 0) and runs parallelism: 2 of them at a time; each counts for "
            "5 seconds. restartPolicy must be Never or OnFailure.",
            "Deployment 的 Pod 一直提供服务；Job 的 Pod 做完一件事就结束。Job count 要求 completions: 3"
            "（三个以退出码 0 结束的 Pod），parallelism: 2（同时最多运行两个）；每个 Pod 工作 5 秒。"
            "restartPolicy 只能是 Never 或 OnFailure。",
            Action("apply", "count.yaml", label="Apply count.yaml", label_zh="应用 count.yaml（kubectl apply）"),
            question="How many Pods will run at once, and what happens when the first two finish?",
            question_zh="同时会运行几个 Pod？前两个结束之后会怎样？",
        ),
        Step(
            "The Job controller in the controller manager creates two Pods (count-xxxxx), and the scheduler and "
            "kubelets treat them like any Pod. When a container exits 0 the Pod is Completed (phase Succeeded) and "
            "stays, with its logs; the controller counts it and makes the third. kubectl get jobs shows "
            "COMPLETIONS 3/3 and STATUS Complete; describe job lists the Completed event.",
            "控制器管理器中的 Job 控制器创建两个 Pod（名字是 count- 加五个随机字符），调度器和 kubelet 像对待普通 Pod 一样处理它们。"
            "容器以 0 退出后 Pod 变为 Completed（阶段 Succeeded），Pod 和日志都保留下来；控制器记下这次成功，再创建第三个。"
            "kubectl get jobs 显示 COMPLETIONS 3/3、STATUS Complete；kubectl describe job 列出 Completed 事件。",
            question="A Job's Pod fails with exit code 1 and restartPolicy Never. What does the Job do?",
            question_zh="Job 的 Pod 以退出码 1 失败，restartPolicy 是 Never。Job 会怎么做？",
        ),
        Step(
            "The Job flaky's Pod always fails: it cannot reach its database and exits 1. backoffLimit: 2 allows "
            "two retries (the default is 6).",
            "Job flaky 的 Pod 总会失败：它连不上数据库，以退出码 1 退出。backoffLimit: 2 允许重试两次（默认 6 次）。",
            Action("apply", "flaky.yaml", label="Apply flaky.yaml", label_zh="应用 flaky.yaml（kubectl apply）",
                   manifest=FLAKY),
            question="How many Pods will we see in the end, and how long will the Job wait between them?",
            question_zh="最后会看到几个 Pod？Job 在两次之间会等多久？",
        ),
        Step(
            "Three Pods in Error: with Never the kubelet does not restart the container, so the Job controller "
            "makes a new Pod each time, after a back-off of 10 s, then 20 s (doubling, at most 6 minutes). After "
            "the third failure the Job is Failed with reason BackoffLimitExceeded: \"Job has reached the specified "
            "backoff limit\". kubectl logs shows why each one failed.",
            "三个 Error 状态的 Pod：restartPolicy 为 Never 时 kubelet 不会重启容器，所以每次都由 Job 控制器新建一个 Pod，"
            "之前先退避 10 秒，然后 20 秒（每次翻倍，最多 6 分钟）。第三次失败后 Job 变为 Failed，原因是 "
            "BackoffLimitExceeded：已达到指定的退避次数上限。kubectl logs 能看到每次失败的原因。",
        ),
        Step(
            "A CronJob makes a Job on a schedule, in cron's five fields: \"*/1 * * * *\" is every minute. It keeps "
            "successfulJobsHistoryLimit: 2 succeeded Jobs (3 by default) and failedJobsHistoryLimit failed ones (1 by "
            "default). Switch to live mode to let the minutes pass (each press of Next goes on to the next thing that "
            "happens).",
            "CronJob 按计划创建 Job，计划用 cron 的五个字段表示：\"*/1 * * * *\" 表示每分钟一次。它保留 "
            "successfulJobsHistoryLimit: 2 个成功结束的 Job（默认 3 个），以及 failedJobsHistoryLimit 个失败的 Job（默认 1 个）。"
            "切换到实时模式，让时间一分钟一分钟地过去（每按一次“下一步”只前进到下一件发生的事）。",
            Action("apply", "tick.yaml", label="Apply tick.yaml", label_zh="应用 tick.yaml（kubectl apply）",
                   manifest=TICK),
            question="After five minutes, how many tick Jobs will kubectl get jobs list?",
            question_zh="五分钟后，kubectl get jobs 会列出几个 tick 的 Job？",
        ),
        Step(
            "Two: each minute the CronJob controller creates tick-<minutes since 1970> (SuccessfulCreate), notices "
            "when it completes (SawCompletedJob) and deletes the oldest beyond the limit (SuccessfulDelete), with "
            "its Pods. kubectl get cronjob tick shows LAST SCHEDULE.",
            "两个：每分钟 CronJob 控制器创建一个 tick-<自 1970 年起的分钟数>（SuccessfulCreate），发现它完成"
            "（SawCompletedJob），再把超出上限的最旧的 Job 连同它的 Pod 一起删除（SuccessfulDelete）。"
            "kubectl get cronjob tick 显示 LAST SCHEDULE（上次调度时间）。",
        ),
        Step(
            "No need to wait for the minute: kubectl create job --from=cronjob/tick runs the CronJob's job template "
            "now, as a Job the CronJob owns: it counts in the history limit like the others.",
            "不必等到下一分钟：kubectl create job --from=cronjob/tick 立即按 CronJob 的 Job 模板运行一个 Job，"
            "这个 Job 同样属于该 CronJob，和其他 Job 一样计入历史记录上限。",
            Action("create-job", "cronjob/tick", "tick-now", label="Create job tick-now from cronjob/tick",
                   label_zh="从 cronjob/tick 创建 Job tick-now"),
        ),
        Step(
            "Suspend the CronJob: spec.suspend: true stops new Jobs; the Jobs already made and their history stay.",
            "暂停 CronJob：spec.suspend: true 让它不再创建新的 Job；已经创建的 Job 和历史记录保留。",
            Action("suspend", "cronjob/tick", label="Suspend cronjob/tick", label_zh="暂停 cronjob/tick"),
            question="Will a suspended CronJob catch up with the minutes it missed when it is resumed?",
            question_zh="暂停的 CronJob 恢复后，会补上错过的那些分钟吗？",
        ),
        Step(
            "Only the latest missed time is run, and only within startingDeadlineSeconds when that is set; a "
            "CronJob never runs one scheduled time twice, because the Job's name is made from that time.",
            "只会补运行最近错过的那一次，设置了 startingDeadlineSeconds 时还必须在期限之内；同一个计划时间不会运行两次，"
            "因为 Job 的名字就由这个时间生成。",
        ),
    ),
    follow="Job/count",
)
