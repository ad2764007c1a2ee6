"""The batch group (v1): Jobs and CronJobs."""

from __future__ import annotations

from .model import (
    BATCH,
    BOOL,
    CORE,
    INT32,
    INT64,
    OBJECT_META,
    OPEN,
    SELECTOR,
    STRING,
    TIME,
    array,
    define,
    enum,
    kind,
    ref,
)

kind("batch", "v1", "Job", BATCH + "Job", "Runs Pods until a number of them have completed successfully.",
     BATCH + "JobSpec", BATCH + "JobStatus")
define(BATCH + "JobSpec", "The Pods a Job runs and when it counts as complete or failed.", {
    "activeDeadlineSeconds": (INT64, "Seconds the Job may run before it is failed and its Pods stopped."),
    "backoffLimit": (INT32, "Failed Pods allowed before the Job is failed; 6 by default."),
    "backoffLimitPerIndex": (INT32, "For Indexed Jobs: failures allowed per index."),
    "completionMode": (enum("Indexed", "NonIndexed"), "NonIndexed, or Indexed to give each Pod its own index."),
    "completions": (INT32, "Successful Pods needed; with none, the first success completes the Job."),
    "managedBy": (STRING, "The controller that manages the Job; the built-in one when empty."),
    "manualSelector": (BOOL, "Whether the selector was written by hand rather than generated."),
    "maxFailedIndexes": (INT32, "For Indexed Jobs: failed indexes allowed before the Job fails."),
    "parallelism": (INT32, "The most Pods running at once; 1 by default."),
    "podFailurePolicy": (OPEN, "Rules for how Pod failures count (fail the Job, ignore, count)."),
    "podReplacementPolicy": (STRING, "When replacement Pods are made: TerminatingOrFailed or Failed."),
    "selector": (SELECTOR, "The Pods it counts; generated unless manualSelector is set."),
    "successPolicy": (OPEN, "Rules by which an Indexed Job succeeds early."),
    "suspend": (BOOL, "While true, no Pods are made and running ones are stopped."),
    "template": (ref(CORE + "PodTemplateSpec"), "The Pods it makes; restartPolicy must be Never or OnFailure."),
    "ttlSecondsAfterFinished": (INT32, "Seconds after finishing before the Job is deleted."),
}, required=("template",))
define(BATCH + "JobStatus", "What the Job controller last saw.", {
    "active": (INT32, "Pods pending or running."),
    "completedIndexes": (STRING, "For Indexed Jobs: the completed indexes, as ranges (1,3-5)."),
    "completionTime": (TIME, "When the Job completed."),
    "conditions": (array(ref(BATCH + "JobCondition"), list_type="atomic"), "Complete, Failed, Suspended and others."),
    "failed": (INT32, "Pods that failed."),
    "failedIndexes": (STRING, "For Indexed Jobs: the failed indexes."),
    "ready": (INT32, "Active Pods that are ready."),
    "startTime": (TIME, "When the controller started the Job."),
    "succeeded": (INT32, "Pods that succeeded."),
    "terminating": (INT32, "Pods being stopped."),
    "uncountedTerminatedPods": (OPEN, "Finished Pods not yet counted in the status."),
})
define(BATCH + "JobCondition", "One condition of a Job.", {
    "lastProbeTime": (TIME, "When the condition was last checked."),
    "lastTransitionTime": (TIME, "When the status last changed."),
    "message": (STRING, "Details of the last transition."),
    "reason": (STRING, "A CamelCase reason for the last transition."),
    "status": (STRING, "True, False or Unknown."),
    "type": (STRING, "The condition's type."),
}, required=("status", "type"))

kind("batch", "v1", "CronJob", BATCH + "CronJob", "Makes a Job at each time of a cron schedule.",
     BATCH + "CronJobSpec", BATCH + "CronJobStatus")
define(BATCH + "CronJobSpec", "When Jobs are made, from what, and how many are kept.", {
    "concurrencyPolicy": (enum("Allow", "Forbid", "Replace"), "What to do when the previous Job still runs."),
    "failedJobsHistoryLimit": (INT32, "Failed Jobs kept; 1 by default."),
    "jobTemplate": (ref(BATCH + "JobTemplateSpec"), "The Jobs it makes."),
    "schedule": (STRING, "The schedule, in cron format."),
    "startingDeadlineSeconds": (INT64, "Seconds after a missed time a Job may still be started."),
    "successfulJobsHistoryLimit": (INT32, "Successful Jobs kept; 3 by default."),
    "suspend": (BOOL, "While true, no new Jobs are made."),
    "timeZone": (STRING, "The time zone of the schedule; the controller's when empty."),
}, required=("jobTemplate", "schedule"))
define(BATCH + "JobTemplateSpec", "The Jobs a CronJob makes.", {
    "metadata": (OBJECT_META, "Metadata given to every Job made."),
    "spec": (ref(BATCH + "JobSpec"), "The spec of every Job made."),
})
define(BATCH + "CronJobStatus", "What the CronJob controller last saw.", {
    "active": (array(ref(CORE + "ObjectReference")), "The Jobs running now."),
    "lastScheduleTime": (TIME, "When a Job was last made."),
    "lastSuccessfulTime": (TIME, "When a Job last succeeded."),
})
