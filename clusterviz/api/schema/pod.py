"""Pods and what they are made of: the spec, containers, probes, volumes, and the status."""

from __future__ import annotations

from .model import (
    BOOL,
    CORE,
    INT32,
    INT64,
    INT_STR,
    OBJECT_META,
    OPEN,
    QTY,
    QTY_MAP,
    SELECTOR,
    STRING,
    STRINGS,
    TIME,
    array,
    define,
    enum,
    kind,
    map_of,
    ref,
)


def _open(name: str, description: str) -> None:
    """A sub-object described by name only: its fields are kept as given and not checked."""
    define(CORE + name, description, {}, open=True)


kind("", "v1", "Pod", CORE + "Pod", "A group of containers scheduled together onto one node, sharing network and volumes.",
     CORE + "PodSpec", CORE + "PodStatus")

define(CORE + "PodTemplateSpec", "The Pods a workload creates: their metadata and spec.", {
    "metadata": (OBJECT_META, "Metadata given to every Pod made from this template."),
    "spec": (ref(CORE + "PodSpec"), "The spec of every Pod made from this template."),
})

_CONTAINERS = array(ref(CORE + "Container"), "name")
define(CORE + "PodSpec", "What a Pod should run and how it should be placed.", {
    "activeDeadlineSeconds": (INT64, "Seconds the Pod may run before the kubelet stops it as failed."),
    "affinity": (ref(CORE + "Affinity"), "Node and Pod affinity rules for scheduling."),
    "automountServiceAccountToken": (BOOL, "Whether a service account token is mounted into the Pod."),
    "containers": (_CONTAINERS, "The containers of the Pod; at least one. Cannot be changed later."),
    "dnsConfig": (ref(CORE + "PodDNSConfig"), "Extra DNS settings merged with those the dnsPolicy gives."),
    "dnsPolicy": (enum("ClusterFirst", "ClusterFirstWithHostNet", "Default", "None"), "How the Pod resolves names."),
    "enableServiceLinks": (BOOL, "Whether Services are announced to the containers as environment variables."),
    "ephemeralContainers": (array(ref(CORE + "EphemeralContainer"), "name"), "Debugging containers added to a running Pod."),
    "hostAliases": (array(ref(CORE + "HostAlias"), "ip"), "Extra entries for the Pod's hosts file."),
    "hostIPC": (BOOL, "Use the node's IPC namespace."),
    "hostNetwork": (BOOL, "Use the node's network namespace; ports open on the node itself."),
    "hostPID": (BOOL, "Use the node's process namespace."),
    "hostUsers": (BOOL, "Use the node's user namespace (the default) or a new one."),
    "hostname": (STRING, "The Pod's host name; defaults to the Pod's name."),
    "hostnameOverride": (STRING, "A host name that replaces the one made from hostname and subdomain."),
    "imagePullSecrets": (array(ref(CORE + "LocalObjectReference"), "name"), "Secrets with registry credentials for pulling images."),
    "initContainers": (_CONTAINERS, "Containers run one after another, each to completion, before the others start."),
    "nodeName": (STRING, "The node the Pod is bound to; set by the scheduler (or by hand to skip it)."),
    "nodeSelector": (map_of(), "Labels a node must have for the Pod to be placed there."),
    "os": (ref(CORE + "PodOS"), "The operating system the Pod's containers need."),
    "overhead": (QTY_MAP, "Resources the Pod's sandbox uses besides its containers."),
    "preemptionPolicy": (enum("Never", "PreemptLowerPriority"), "Whether this Pod may evict lower-priority Pods."),
    "priority": (INT32, "The Pod's priority, filled from its priority class."),
    "priorityClassName": (STRING, "The priority class giving this Pod its priority."),
    "readinessGates": (array(ref(CORE + "PodReadinessGate")), "Extra conditions that must be True for the Pod to be Ready."),
    "resourceClaims": (array(ref(CORE + "PodResourceClaim"), "name"), "Dynamic resources the Pod claims."),
    "resources": (ref(CORE + "ResourceRequirements"), "Resources for the Pod as a whole."),
    "restartPolicy": (enum("Always", "Never", "OnFailure"), "When the kubelet restarts containers that exit."),
    "runtimeClassName": (STRING, "The runtime class the Pod runs with."),
    "schedulerName": (STRING, "The scheduler that places this Pod; default-scheduler unless given."),
    "schedulingGates": (array(ref(CORE + "PodSchedulingGate"), "name"), "While any is present the Pod is not scheduled."),
    "securityContext": (ref(CORE + "PodSecurityContext"), "Security settings for all containers of the Pod."),
    "serviceAccount": (STRING, "Deprecated alias of serviceAccountName."),
    "serviceAccountName": (STRING, "The service account the Pod runs as."),
    "setHostnameAsFQDN": (BOOL, "Whether the host name is the Pod's fully qualified domain name."),
    "shareProcessNamespace": (BOOL, "Whether all containers share one process namespace."),
    "subdomain": (STRING, "With hostname, gives the Pod a DNS name under a headless Service."),
    "terminationGracePeriodSeconds": (INT64, "Seconds the Pod gets to stop after being asked to; 30 by default."),
    "tolerations": (array(ref(CORE + "Toleration")), "Taints this Pod tolerates."),
    "topologySpreadConstraints": (array(ref(CORE + "TopologySpreadConstraint"), "topologyKey", "whenUnsatisfiable"),
                                  "How the Pod's replicas spread over zones, nodes and other domains."),
    "volumes": (array(ref(CORE + "Volume"), "name"), "Volumes the containers can mount."),
}, required=("containers",))

_PROBE = ref(CORE + "Probe")
_CONTAINER_FIELDS = {
    "args": (STRINGS, "Arguments to the entrypoint; the image's CMD when not given."),
    "command": (STRINGS, "The entrypoint; the image's ENTRYPOINT when not given. Not run in a shell."),
    "env": (array(ref(CORE + "EnvVar"), "name"), "Environment variables set in the container."),
    "envFrom": (array(ref(CORE + "EnvFromSource")), "ConfigMaps and Secrets whose keys become environment variables."),
    "image": (STRING, "The container image to run."),
    "imagePullPolicy": (enum("Always", "IfNotPresent", "Never"), "When the kubelet pulls the image."),
    "lifecycle": (ref(CORE + "Lifecycle"), "Actions run just after start and just before stop."),
    "livenessProbe": (_PROBE, "A check that restarts the container when it fails."),
    "name": (STRING, "The container's name, unique within the Pod."),
    "ports": (array(ref(CORE + "ContainerPort"), "containerPort", "protocol"), "Ports the container listens on; informational."),
    "readinessProbe": (_PROBE, "A check that takes the Pod out of Service endpoints while it fails."),
    "resizePolicy": (array(ref(CORE + "ContainerResizePolicy")), "How the container is resized in place."),
    "resources": (ref(CORE + "ResourceRequirements"), "The compute resources the container requests and is limited to."),
    "restartPolicy": (STRING, "For init containers: Always makes it a sidecar."),
    "restartPolicyRules": (array(OPEN), "Exit codes after which the container is restarted or not, overriding restartPolicy."),
    "securityContext": (ref(CORE + "SecurityContext"), "Security settings for this container."),
    "startupProbe": (_PROBE, "A check that holds the other probes until the container has started."),
    "stdin": (BOOL, "Keep a stdin buffer open for the container."),
    "stdinOnce": (BOOL, "Close stdin after the first attach ends."),
    "terminationMessagePath": (STRING, "The file whose contents become the termination message."),
    "terminationMessagePolicy": (enum("FallbackToLogsOnError", "File"), "Where the termination message comes from."),
    "tty": (BOOL, "Allocate a terminal for the container."),
    "volumeDevices": (array(ref(CORE + "VolumeDevice"), "devicePath"), "Block devices the container uses."),
    "volumeMounts": (array(ref(CORE + "VolumeMount"), "mountPath"), "Volumes mounted into the container's filesystem."),
    "workingDir": (STRING, "The working directory; the image's when not given."),
}
define(CORE + "Container", "One application container run within a Pod.", _CONTAINER_FIELDS, required=("name",))
define(CORE + "EphemeralContainer", "A container added to a running Pod for debugging.", {
    **_CONTAINER_FIELDS, "targetContainerName": (STRING, "The container whose namespaces this one joins."),
}, required=("name",))

define(CORE + "ContainerPort", "A port a container listens on.", {
    "containerPort": (INT32, "The port number on the Pod's IP address."),
    "hostIP": (STRING, "The node address to bind a host port to."),
    "hostPort": (INT32, "A port opened on the node and forwarded to the container."),
    "name": (STRING, "A name Services can use as a target port."),
    "protocol": (enum("SCTP", "TCP", "UDP"), "The protocol; TCP by default."),
}, required=("containerPort",))

define(CORE + "EnvVar", "One environment variable.", {
    "name": (STRING, "The variable's name."),
    "value": (STRING, "The value; $(VAR) references to earlier variables are expanded."),
    "valueFrom": (ref(CORE + "EnvVarSource"), "Where to read the value from, instead of value."),
}, required=("name",))
define(CORE + "EnvVarSource", "The source of an environment variable's value.", {
    "configMapKeyRef": (ref(CORE + "ConfigMapKeySelector"), "A key of a ConfigMap."),
    "fieldRef": (ref(CORE + "ObjectFieldSelector"), "A field of the Pod (metadata.name, status.podIP...)."),
    "fileKeyRef": (OPEN, "A key of an environment file in a volume."),
    "resourceFieldRef": (ref(CORE + "ResourceFieldSelector"), "A resource request or limit of a container."),
    "secretKeyRef": (ref(CORE + "SecretKeySelector"), "A key of a Secret."),
})
for _source, _what in (("ConfigMap", "ConfigMap"), ("Secret", "Secret")):
    define(CORE + f"{_source}KeySelector", f"Selects one key of a {_what}.", {
        "key": (STRING, "The key to read."),
        "name": (STRING, f"The {_what}'s name."),
        "optional": (BOOL, f"Whether the {_what} or its key may be missing."),
    }, required=("key",))
    define(CORE + f"{_source}EnvSource", f"All keys of a {_what} as environment variables.", {
        "name": (STRING, f"The {_what}'s name."),
        "optional": (BOOL, f"Whether the {_what} may be missing."),
    })
define(CORE + "ObjectFieldSelector", "Selects a field of the Pod.", {
    "apiVersion": (STRING, "The version the field path is written in; v1 by default."),
    "fieldPath": (STRING, "The path of the field to read."),
}, required=("fieldPath",))
define(CORE + "ResourceFieldSelector", "Selects a resource of a container.", {
    "containerName": (STRING, "The container; required for volumes."),
    "divisor": (QTY, "The unit the value is expressed in; 1 by default."),
    "resource": (STRING, "The resource to read (limits.cpu, requests.memory...)."),
}, required=("resource",))
define(CORE + "EnvFromSource", "A set of environment variables from a ConfigMap or Secret.", {
    "configMapRef": (ref(CORE + "ConfigMapEnvSource"), "The ConfigMap to read."),
    "prefix": (STRING, "A prefix put in front of every key."),
    "secretRef": (ref(CORE + "SecretEnvSource"), "The Secret to read."),
})

define(CORE + "ResourceRequirements", "Compute resources: what is reserved and what is the most allowed.", {
    "claims": (array(ref(CORE + "ResourceClaim"), "name"), "Dynamic resource claims of the Pod this container uses."),
    "limits": (QTY_MAP, "The most of each resource the container may use."),
    "requests": (QTY_MAP, "The resources the scheduler reserves for the container; limits when not given."),
})
define(CORE + "ResourceClaim", "Names one resource claim of the Pod.", {
    "name": (STRING, "The claim's name in the Pod's resourceClaims."),
    "request": (STRING, "A request within the claim."),
}, required=("name",))

define(CORE + "Probe", "A check the kubelet runs against a container.", {
    "exec": (ref(CORE + "ExecAction"), "Run a command; exit status 0 passes."),
    "failureThreshold": (INT32, "Failures in a row after which the probe fails; 3 by default."),
    "grpc": (ref(CORE + "GRPCAction"), "Call the gRPC health service."),
    "httpGet": (ref(CORE + "HTTPGetAction"), "Send an HTTP GET; a 2xx or 3xx answer passes."),
    "initialDelaySeconds": (INT32, "Seconds after start before the first probe."),
    "periodSeconds": (INT32, "Seconds between probes; 10 by default."),
    "successThreshold": (INT32, "Successes in a row after a failure for the probe to pass again; 1 by default."),
    "tcpSocket": (ref(CORE + "TCPSocketAction"), "Open a TCP connection; connecting passes."),
    "terminationGracePeriodSeconds": (INT64, "The grace period when this probe's failure stops the Pod."),
    "timeoutSeconds": (INT32, "Seconds before a probe times out; 1 by default."),
})
define(CORE + "ExecAction", "A command run in the container.", {
    "command": (STRINGS, "The command and its arguments; not run in a shell."),
})
define(CORE + "GRPCAction", "A gRPC health check.", {
    "port": (INT32, "The port to call."),
    "service": (STRING, "The service name sent in the health request."),
}, required=("port",))
define(CORE + "HTTPGetAction", "An HTTP GET request.", {
    "host": (STRING, "The host to connect to; the Pod's IP by default."),
    "httpHeaders": (array(ref(CORE + "HTTPHeader")), "Extra request headers."),
    "path": (STRING, "The path to request."),
    "port": (INT_STR, "The port, by number or by name."),
    "scheme": (enum("HTTP", "HTTPS"), "HTTP or HTTPS."),
}, required=("port",))
define(CORE + "HTTPHeader", "One HTTP header.", {
    "name": (STRING, "The header's name."),
    "value": (STRING, "The header's value."),
}, required=("name", "value"))
define(CORE + "TCPSocketAction", "A TCP connection attempt.", {
    "host": (STRING, "The host to connect to; the Pod's IP by default."),
    "port": (INT_STR, "The port, by number or by name."),
}, required=("port",))
define(CORE + "SleepAction", "A pause.", {"seconds": (INT64, "How long to sleep.")}, required=("seconds",))
define(CORE + "Lifecycle", "Hooks run at a container's start and stop.", {
    "postStart": (ref(CORE + "LifecycleHandler"), "Run right after the container is created."),
    "preStop": (ref(CORE + "LifecycleHandler"), "Run before the container is stopped."),
    "stopSignal": (STRING, "The signal that stops the container; the image's when not given."),
})
define(CORE + "LifecycleHandler", "What a lifecycle hook does.", {
    "exec": (ref(CORE + "ExecAction"), "Run a command."),
    "httpGet": (ref(CORE + "HTTPGetAction"), "Send an HTTP GET."),
    "sleep": (ref(CORE + "SleepAction"), "Sleep for a while."),
    "tcpSocket": (ref(CORE + "TCPSocketAction"), "Deprecated; kept for compatibility."),
})
define(CORE + "ContainerResizePolicy", "How one resource of a container is resized.", {
    "resourceName": (STRING, "cpu or memory."),
    "restartPolicy": (STRING, "NotRequired or RestartContainer."),
}, required=("resourceName", "restartPolicy"))

define(CORE + "VolumeMount", "Where a volume appears in a container.", {
    "mountPath": (STRING, "The path in the container."),
    "mountPropagation": (STRING, "How mounts propagate between the node and the container."),
    "name": (STRING, "The name of the Pod's volume."),
    "readOnly": (BOOL, "Mount read-only."),
    "recursiveReadOnly": (STRING, "Whether read-only applies to sub-mounts too."),
    "subPath": (STRING, "A path within the volume to mount instead of its root."),
    "subPathExpr": (STRING, "Like subPath, with $(VAR) expanded from the environment."),
}, required=("mountPath", "name"))
define(CORE + "VolumeDevice", "A raw block device in a container.", {
    "devicePath": (STRING, "The device's path in the container."),
    "name": (STRING, "The claim's volume name."),
}, required=("devicePath", "name"))

_SOURCES = ("awsElasticBlockStore", "azureDisk", "azureFile", "cephfs", "cinder", "csi", "downwardAPI", "ephemeral",
            "fc", "flexVolume", "flocker", "gcePersistentDisk", "gitRepo", "glusterfs", "image", "iscsi", "nfs",
            "photonPersistentDisk", "portworxVolume", "projected", "quobyte", "rbd", "scaleIO", "storageos",
            "vsphereVolume")
define(CORE + "Volume", "A named volume the Pod's containers can mount; exactly one source is set.", {
    "name": (STRING, "The volume's name, used by volumeMounts."),
    "configMap": (ref(CORE + "ConfigMapVolumeSource"), "Keys of a ConfigMap as files."),
    "emptyDir": (ref(CORE + "EmptyDirVolumeSource"), "An empty directory that lives as long as the Pod."),
    "hostPath": (ref(CORE + "HostPathVolumeSource"), "A file or directory of the node."),
    "persistentVolumeClaim": (ref(CORE + "PersistentVolumeClaimVolumeSource"), "A claimed persistent volume."),
    "secret": (ref(CORE + "SecretVolumeSource"), "Keys of a Secret as files."),
    **{source: (OPEN, f"A {source} volume.") for source in _SOURCES},
}, required=("name",))
define(CORE + "KeyToPath", "Maps one key to a file path.", {
    "key": (STRING, "The key to project."),
    "mode": (INT32, "The file's permission bits."),
    "path": (STRING, "The relative file path."),
}, required=("key", "path"))
define(CORE + "ConfigMapVolumeSource", "A ConfigMap's keys as files.", {
    "defaultMode": (INT32, "Permission bits of the files; 0644 by default."),
    "items": (array(ref(CORE + "KeyToPath")), "Which keys to project, and where; all keys when empty."),
    "name": (STRING, "The ConfigMap's name."),
    "optional": (BOOL, "Whether the ConfigMap may be missing."),
})
define(CORE + "SecretVolumeSource", "A Secret's keys as files.", {
    "defaultMode": (INT32, "Permission bits of the files; 0644 by default."),
    "items": (array(ref(CORE + "KeyToPath")), "Which keys to project, and where; all keys when empty."),
    "optional": (BOOL, "Whether the Secret may be missing."),
    "secretName": (STRING, "The Secret's name."),
})
define(CORE + "EmptyDirVolumeSource", "A scratch directory.", {
    "medium": (STRING, "Where it is stored: the node's disk, or Memory."),
    "sizeLimit": (QTY, "The most the directory may hold."),
})
define(CORE + "HostPathVolumeSource", "A path on the node.", {
    "path": (STRING, "The path on the node."),
    "type": (STRING, "What must be at the path (Directory, File, ...)."),
}, required=("path",))
define(CORE + "PersistentVolumeClaimVolumeSource", "A reference to a claim in the Pod's namespace.", {
    "claimName": (STRING, "The claim's name."),
    "readOnly": (BOOL, "Mount read-only."),
}, required=("claimName",))

define(CORE + "Toleration", "Lets the Pod be placed on (or stay on) nodes with a matching taint.", {
    "effect": (enum("NoExecute", "NoSchedule", "PreferNoSchedule"), "The taint effect to match; all when empty."),
    "key": (STRING, "The taint key to match; all keys when empty with operator Exists."),
    "operator": (enum("Equal", "Exists"), "Equal (the default) or Exists."),
    "tolerationSeconds": (INT64, "For NoExecute: how long the Pod stays once tainted."),
    "value": (STRING, "The taint value to match with Equal."),
})
define(CORE + "TopologySpreadConstraint", "How matching Pods spread over a topology.", {
    "labelSelector": (SELECTOR, "The Pods counted in each domain."),
    "matchLabelKeys": (array(STRING, list_type="atomic"), "Label keys whose values from this Pod narrow the selector."),
    "maxSkew": (INT32, "The largest allowed difference between domains."),
    "minDomains": (INT32, "The fewest eligible domains."),
    "nodeAffinityPolicy": (STRING, "Whether node affinity limits the domains (Honor or Ignore)."),
    "nodeTaintsPolicy": (STRING, "Whether node taints limit the domains (Honor or Ignore)."),
    "topologyKey": (STRING, "The node label naming the domain."),
    "whenUnsatisfiable": (enum("DoNotSchedule", "ScheduleAnyway"), "What to do when the skew cannot be met."),
}, required=("maxSkew", "topologyKey", "whenUnsatisfiable"))
define(CORE + "LocalObjectReference", "Names an object in the same namespace.", {
    "name": (STRING, "The object's name."),
})
define(CORE + "HostAlias", "An IP address and names for the Pod's hosts file.", {
    "hostnames": (STRINGS, "Names for the address."),
    "ip": (STRING, "The address."),
}, required=("ip",))
define(CORE + "PodOS", "An operating system.", {"name": (STRING, "linux or windows.")}, required=("name",))
define(CORE + "PodReadinessGate", "An extra readiness condition.", {
    "conditionType": (STRING, "The condition type that must be True."),
}, required=("conditionType",))
define(CORE + "PodSchedulingGate", "Holds the Pod from scheduling while present.", {
    "name": (STRING, "The gate's name."),
}, required=("name",))
_open("Affinity", "Node affinity, Pod affinity and Pod anti-affinity rules.")
_open("PodDNSConfig", "Nameservers, search domains and resolver options.")
_open("PodResourceClaim", "A dynamic resource claim of the Pod.")
_open("PodSecurityContext", "Security settings (user, group, sysctls...) for all containers.")
_open("SecurityContext", "Security settings (user, capabilities, privilege...) for one container.")

define(CORE + "PodStatus", "What is known of the Pod now; written by the kubelet and the scheduler.", {
    "conditions": (array(ref(CORE + "PodCondition"), "type"), "PodScheduled, Initialized, ContainersReady, Ready and others."),
    "containerStatuses": (array(ref(CORE + "ContainerStatus")), "One entry per container of the spec."),
    "ephemeralContainerStatuses": (array(ref(CORE + "ContainerStatus")), "One entry per ephemeral container."),
    "hostIP": (STRING, "The address of the node the Pod runs on."),
    "hostIPs": (array(ref(CORE + "HostIP")), "All addresses of the node."),
    "initContainerStatuses": (array(ref(CORE + "ContainerStatus")), "One entry per init container."),
    "message": (STRING, "Why the Pod is in its state."),
    "nominatedNodeName": (STRING, "The node preemption made room on."),
    "observedGeneration": (INT64, "The Pod generation this status was written for."),
    "phase": (enum("Failed", "Pending", "Running", "Succeeded", "Unknown"), "The Pod's place in its lifecycle."),
    "podIP": (STRING, "The Pod's address."),
    "podIPs": (array(ref(CORE + "PodIP"), "ip"), "All of the Pod's addresses."),
    "qosClass": (enum("BestEffort", "Burstable", "Guaranteed"), "The quality of service class from its resources."),
    "reason": (STRING, "A short CamelCase reason for the state (Evicted...)."),
    "resize": (STRING, "The state of an in-place resize."),
    "resourceClaimStatuses": (array(OPEN), "Status of the dynamic resource claims."),
    "startTime": (TIME, "When the kubelet accepted the Pod."),
})
define(CORE + "PodCondition", "One condition of a Pod.", {
    "lastProbeTime": (TIME, "When the condition was last checked."),
    "lastTransitionTime": (TIME, "When the status last changed."),
    "message": (STRING, "Details of the last transition."),
    "observedGeneration": (INT64, "The Pod generation the condition was set for."),
    "reason": (STRING, "A CamelCase reason for the last transition."),
    "status": (STRING, "True, False or Unknown."),
    "type": (STRING, "The condition's type."),
}, required=("status", "type"))
define(CORE + "HostIP", "An address of the node.", {"ip": (STRING, "The address.")}, required=("ip",))
define(CORE + "PodIP", "An address of the Pod.", {"ip": (STRING, "The address.")}, required=("ip",))
define(CORE + "ContainerStatus", "What is known of one container.", {
    "allocatedResources": (QTY_MAP, "Resources the node gave the container."),
    "allocatedResourcesStatus": (array(OPEN), "Health of the allocated resources."),
    "containerID": (STRING, "The runtime's id of the container."),
    "image": (STRING, "The image the container runs."),
    "imageID": (STRING, "The id of the image."),
    "lastState": (ref(CORE + "ContainerState"), "The state of the last run, when it was restarted."),
    "name": (STRING, "The container's name."),
    "ready": (BOOL, "Whether its readiness probe passes."),
    "resources": (ref(CORE + "ResourceRequirements"), "The resources the container runs with."),
    "restartCount": (INT32, "How many times the container has been restarted."),
    "started": (BOOL, "Whether the startup probe passed."),
    "state": (ref(CORE + "ContainerState"), "The current state."),
    "stopSignal": (STRING, "The signal sent to stop the container."),
    "user": (OPEN, "The user identity the container runs as."),
    "volumeMounts": (array(OPEN), "The volumes mounted into the container."),
}, required=("image", "imageID", "name", "ready", "restartCount"))
define(CORE + "ContainerState", "Exactly one of waiting, running or terminated.", {
    "running": (OPEN, "Running since startedAt."),
    "terminated": (OPEN, "Finished: exitCode, reason, startedAt, finishedAt."),
    "waiting": (OPEN, "Not running yet: reason and message."),
})
