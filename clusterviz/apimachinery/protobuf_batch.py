"""The batch/v1 kinds (Job, CronJob) for the protobuf decoder, with the field numbers of batch/v1's generated.proto.

``kubectl create job`` and ``kubectl create cronjob`` post these as
protobuf. Importing this module adds them to the decoder's kinds; the API
codec imports it. Pod failure and success policies are not described, so
they are skipped as unknown fields are.
"""

from __future__ import annotations

from .protobuf import _KINDS, _LABEL_SELECTOR, _OBJECT_META, _POD_TEMPLATE_SPEC, ALWAYS, KEEP, _f, _Message

_JOB_SPEC = _Message(
    _f(1, "parallelism", "int32", presence=KEEP),
    _f(2, "completions", "int32", presence=KEEP),
    _f(3, "activeDeadlineSeconds", "int64", presence=KEEP),
    _f(7, "backoffLimit", "int32", presence=KEEP),
    _f(12, "backoffLimitPerIndex", "int32", presence=KEEP),
    _f(13, "maxFailedIndexes", "int32", presence=KEEP),
    _f(4, "selector", _LABEL_SELECTOR, presence=KEEP),
    _f(5, "manualSelector", "bool", presence=KEEP),
    _f(6, "template", _POD_TEMPLATE_SPEC),
    _f(8, "ttlSecondsAfterFinished", "int32", presence=KEEP),
    _f(9, "completionMode", "string", presence=KEEP),
    _f(10, "suspend", "bool", presence=KEEP),
    _f(14, "podReplacementPolicy", "string", presence=KEEP),
    _f(15, "managedBy", "string", presence=KEEP),
)

_CRON_JOB_SPEC = _Message(
    _f(1, "schedule", "string", presence=ALWAYS),
    _f(8, "timeZone", "string", presence=KEEP),
    _f(2, "startingDeadlineSeconds", "int64", presence=KEEP),
    _f(3, "concurrencyPolicy", "string"),
    _f(4, "suspend", "bool", presence=KEEP),
    _f(5, "jobTemplate", _Message(_f(1, "metadata", _OBJECT_META), _f(2, "spec", _JOB_SPEC))),
    _f(6, "successfulJobsHistoryLimit", "int32", presence=KEEP),
    _f(7, "failedJobsHistoryLimit", "int32", presence=KEEP),
)

_KINDS[("batch/v1", "Job")] = _Message(_f(1, "metadata", _OBJECT_META), _f(2, "spec", _JOB_SPEC))
_KINDS[("batch/v1", "CronJob")] = _Message(_f(1, "metadata", _OBJECT_META), _f(2, "spec", _CRON_JOB_SPEC))
