"""The core group (v1) besides Pods: namespaces, nodes, services, config, accounts, events."""

from __future__ import annotations

from .model import (
    BOOL,
    BYTES,
    CORE,
    INT32,
    INT64,
    INT_STR,
    META,
    MICRO_TIME,
    OPEN,
    QTY_MAP,
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

_OBJECT_REF = ref(CORE + "ObjectReference")
_LOCAL_REF = ref(CORE + "LocalObjectReference")

define(CORE + "ObjectReference", "Points at another object by kind, namespace and name.", {
    "apiVersion": (STRING, "API version of the referred object."),
    "fieldPath": (STRING, "A part of the object, such as spec.containers{name}."),
    "kind": (STRING, "Kind of the referred object."),
    "name": (STRING, "Name of the referred object."),
    "namespace": (STRING, "Namespace of the referred object."),
    "resourceVersion": (STRING, "The version of the object the reference was made from."),
    "uid": (STRING, "UID of the referred object."),
})

kind("", "v1", "Namespace", CORE + "Namespace", "A scope for names; most objects live in one.",
     CORE + "NamespaceSpec", CORE + "NamespaceStatus")
define(CORE + "NamespaceSpec", "What a namespace needs before it can be removed.", {
    "finalizers": (STRINGS, "Cleanups that must finish before the namespace is deleted for good."),
})
define(CORE + "NamespaceStatus", "The namespace's phase and conditions.", {
    "conditions": (array(ref(CORE + "NamespaceCondition"), "type"), "Conditions of the namespace's deletion."),
    "phase": (enum("Active", "Terminating"), "Active, or Terminating while its contents are removed."),
})
define(CORE + "NamespaceCondition", "One condition of a namespace.", {
    "lastTransitionTime": (TIME, "When the status last changed."),
    "message": (STRING, "Details of the last transition."),
    "reason": (STRING, "A CamelCase reason for the last transition."),
    "status": (STRING, "True, False or Unknown."),
    "type": (STRING, "The condition's type."),
}, required=("status", "type"))

kind("", "v1", "Node", CORE + "Node", "A machine (real or virtual) that runs Pods; its kubelet reports its status.",
     CORE + "NodeSpec", CORE + "NodeStatus")
define(CORE + "NodeSpec", "How the node is configured for scheduling.", {
    "configSource": (OPEN, "Deprecated; not used."),
    "externalID": (STRING, "Deprecated; not used."),
    "podCIDR": (STRING, "The address range of the node's Pods."),
    "podCIDRs": (array(STRING, list_type="set"), "The address ranges of the node's Pods, one per IP family."),
    "providerID": (STRING, "The cloud provider's id of the machine."),
    "taints": (array(ref(CORE + "Taint")), "Taints that repel Pods which do not tolerate them."),
    "unschedulable": (BOOL, "When true no new Pods are placed here (kubectl cordon)."),
})
define(CORE + "Taint", "Repels Pods that do not tolerate it.", {
    "effect": (enum("NoExecute", "NoSchedule", "PreferNoSchedule"), "What happens to Pods that do not tolerate it."),
    "key": (STRING, "The taint's key."),
    "timeAdded": (TIME, "When a NoExecute taint was added."),
    "value": (STRING, "The taint's value."),
}, required=("effect", "key"))
define(CORE + "NodeStatus", "What the kubelet reports of its node.", {
    "addresses": (array(ref(CORE + "NodeAddress"), "type"), "The node's addresses."),
    "allocatable": (QTY_MAP, "The resources Pods may use."),
    "capacity": (QTY_MAP, "The node's total resources."),
    "conditions": (array(ref(CORE + "NodeCondition"), "type"), "Ready, MemoryPressure, DiskPressure, PIDPressure."),
    "config": (OPEN, "The state of dynamic kubelet configuration."),
    "daemonEndpoints": (OPEN, "Ports of the node's daemons (the kubelet's)."),
    "features": (OPEN, "Features the node's runtime supports."),
    "images": (array(ref(CORE + "ContainerImage")), "Images present on the node."),
    "nodeInfo": (ref(CORE + "NodeSystemInfo"), "Versions and ids of the node's software."),
    "phase": (STRING, "Deprecated; not used."),
    "runtimeHandlers": (array(OPEN), "Runtime handlers the node offers."),
    "volumesAttached": (array(OPEN), "Volumes attached to the node."),
    "volumesInUse": (STRINGS, "Volumes in use on the node."),
})
define(CORE + "NodeAddress", "One address of a node.", {
    "address": (STRING, "The address."),
    "type": (STRING, "Hostname, InternalIP, ExternalIP..."),
}, required=("address", "type"))
define(CORE + "NodeCondition", "One condition of a node.", {
    "lastHeartbeatTime": (TIME, "When the kubelet last reported it."),
    "lastTransitionTime": (TIME, "When the status last changed."),
    "message": (STRING, "Details of the last transition."),
    "reason": (STRING, "A CamelCase reason for the last transition."),
    "status": (STRING, "True, False or Unknown."),
    "type": (STRING, "The condition's type."),
}, required=("status", "type"))
define(CORE + "ContainerImage", "An image on a node.", {
    "names": (STRINGS, "Names and digests of the image."),
    "sizeBytes": (INT64, "The image's size."),
})
define(CORE + "NodeSystemInfo", "Software on the node.", {
    **{f: (STRING, d) for f, d in (
        ("architecture", "The CPU architecture."), ("bootID", "Changes on each reboot."),
        ("containerRuntimeVersion", "The container runtime and its version."), ("kernelVersion", "The kernel version."),
        ("kubeProxyVersion", "Deprecated."), ("kubeletVersion", "The kubelet's version."),
        ("machineID", "The machine's id."), ("operatingSystem", "linux or windows."),
        ("osImage", "The operating system's name."), ("systemUUID", "The hardware's UUID."),
    )},
    "swap": (OPEN, "Swap memory information."),
})

kind("", "v1", "Service", CORE + "Service", "A stable name and address in front of the Pods a selector picks.",
     CORE + "ServiceSpec", CORE + "ServiceStatus")
define(CORE + "ServiceSpec", "How the Service is reached and which Pods it sends traffic to.", {
    "allocateLoadBalancerNodePorts": (BOOL, "Whether a LoadBalancer Service gets node ports."),
    "clusterIP": (STRING, "The virtual address; allocated when empty, None for a headless Service."),
    "clusterIPs": (array(STRING), "The virtual addresses, one per IP family."),
    "externalIPs": (STRINGS, "Addresses outside the cluster that also lead to the Service."),
    "externalName": (STRING, "For ExternalName: the DNS name the Service's name points to."),
    "externalTrafficPolicy": (enum("Cluster", "Local"), "Whether outside traffic may go to other nodes' Pods."),
    "healthCheckNodePort": (INT32, "The node port health checks use with the Local policy."),
    "internalTrafficPolicy": (enum("Cluster", "Local"), "Whether traffic from within may go to other nodes' Pods."),
    "ipFamilies": (STRINGS, "IPv4, IPv6 or both."),
    "ipFamilyPolicy": (enum("PreferDualStack", "RequireDualStack", "SingleStack"), "How many IP families to use."),
    "loadBalancerClass": (STRING, "Which load balancer implementation serves it."),
    "loadBalancerIP": (STRING, "Deprecated: a requested load balancer address."),
    "loadBalancerSourceRanges": (STRINGS, "Client ranges a load balancer lets in."),
    "ports": (array(ref(CORE + "ServicePort"), "port", "protocol"), "The ports the Service exposes."),
    "publishNotReadyAddresses": (BOOL, "Whether endpoints include Pods that are not ready."),
    "selector": (map_of(), "Labels of the Pods that receive the traffic."),
    "sessionAffinity": (enum("ClientIP", "None"), "Whether a client keeps going to the same Pod."),
    "sessionAffinityConfig": (OPEN, "Settings of client-IP affinity."),
    "trafficDistribution": (STRING, "A preference for how traffic is spread over endpoints."),
    "type": (enum("ClusterIP", "ExternalName", "LoadBalancer", "NodePort"), "How the Service is exposed."),
})
define(CORE + "ServicePort", "One port of a Service.", {
    "appProtocol": (STRING, "The application protocol, as a hint."),
    "name": (STRING, "The port's name; required when there are several."),
    "nodePort": (INT32, "The port opened on every node for NodePort and LoadBalancer."),
    "port": (INT32, "The port the Service listens on."),
    "protocol": (enum("SCTP", "TCP", "UDP"), "TCP by default."),
    "targetPort": (INT_STR, "The Pods' port, by number or name; port by default."),
}, required=("port",))
define(CORE + "ServiceStatus", "What is known of the Service's load balancer.", {
    "conditions": (array(ref(META + "Condition"), "type"), "The Service's conditions."),
    "loadBalancer": (OPEN, "The load balancer's ingress points."),
})

kind("", "v1", "Endpoints", CORE + "Endpoints", "The addresses and ports behind a Service.",
     extra={"subsets": (array(ref(CORE + "EndpointSubset")), "Groups of addresses that share the same ports.")})
define(CORE + "EndpointSubset", "Addresses that share a set of ports.", {
    "addresses": (array(ref(CORE + "EndpointAddress")), "Ready addresses."),
    "notReadyAddresses": (array(ref(CORE + "EndpointAddress")), "Addresses of Pods that are not ready."),
    "ports": (array(ref(CORE + "EndpointPort")), "The ports."),
})
define(CORE + "EndpointAddress", "One address behind a Service.", {
    "hostname": (STRING, "The host name of the endpoint."),
    "ip": (STRING, "The address."),
    "nodeName": (STRING, "The node the endpoint runs on."),
    "targetRef": (_OBJECT_REF, "The Pod with this address."),
}, required=("ip",))
define(CORE + "EndpointPort", "One port behind a Service.", {
    "appProtocol": (STRING, "The application protocol."),
    "name": (STRING, "The Service port's name."),
    "port": (INT32, "The port number."),
    "protocol": (STRING, "TCP, UDP or SCTP."),
}, required=("port",))

kind("", "v1", "Event", CORE + "Event", "A report of something that happened to an object.", extra={
    "action": (STRING, "What was done (or failed)."),
    "count": (INT32, "How many times it happened."),
    "eventTime": (MICRO_TIME, "When it was first seen, precisely."),
    "firstTimestamp": (TIME, "When it was first recorded."),
    "involvedObject": (_OBJECT_REF, "The object it is about."),
    "lastTimestamp": (TIME, "When it was most recently recorded."),
    "message": (STRING, "A human-readable description."),
    "reason": (STRING, "A short CamelCase reason."),
    "related": (_OBJECT_REF, "A second object involved."),
    "reportingComponent": (STRING, "The component that reported it."),
    "reportingInstance": (STRING, "The instance of that component."),
    "series": (ref(CORE + "EventSeries"), "Repeats of the event."),
    "source": (ref(CORE + "EventSource"), "The component (and host) that reported it."),
    "type": (enum("Normal", "Warning"), "Normal or Warning."),
}, required=("involvedObject", "metadata"))
define(CORE + "EventSeries", "Repeats of an event.", {
    "count": (INT32, "Occurrences so far."),
    "lastObservedTime": (MICRO_TIME, "When it last happened."),
})
define(CORE + "EventSource", "Who reported an event.", {
    "component": (STRING, "The component."),
    "host": (STRING, "The node it runs on."),
})

kind("", "v1", "ConfigMap", CORE + "ConfigMap", "Configuration data for Pods to read, as keys and values.", extra={
    "binaryData": (map_of(BYTES), "Binary values, base64-encoded; keys must not repeat those of data."),
    "data": (map_of(), "Text values."),
    "immutable": (BOOL, "When true, the data can no longer change."),
})
kind("", "v1", "Secret", CORE + "Secret", "Sensitive data (passwords, keys, tokens) for Pods to read.", extra={
    "data": (map_of(BYTES), "Values, base64-encoded."),
    "immutable": (BOOL, "When true, the data can no longer change."),
    "stringData": (map_of(), "Plain-text values merged into data on write; never read back."),
    "type": (STRING, "What the Secret holds (Opaque, kubernetes.io/tls, ...), checked by the server."),
})
kind("", "v1", "ServiceAccount", CORE + "ServiceAccount", "An identity for processes running in Pods.", extra={
    "automountServiceAccountToken": (BOOL, "Whether Pods get this account's token mounted by default."),
    "imagePullSecrets": (array(_LOCAL_REF), "Registry credentials given to Pods using this account."),
    "secrets": (array(_OBJECT_REF, "name"), "Secrets Pods using this account may use."),
})

kind("", "v1", "ReplicationController", CORE + "ReplicationController",
     "Keeps a number of Pod replicas running (the predecessor of ReplicaSet).",
     CORE + "ReplicationControllerSpec", CORE + "ReplicationControllerStatus")
define(CORE + "ReplicationControllerSpec", "How many Pods, which ones, and how to make them.", {
    "minReadySeconds": (INT32, "Seconds a new Pod must be ready to count as available."),
    "replicas": (INT32, "The desired number of Pods; 1 by default."),
    "selector": (map_of(), "Labels of the Pods it counts; the template's labels when empty."),
    "template": (ref(CORE + "PodTemplateSpec"), "The Pods it makes."),
})
define(CORE + "ReplicationControllerStatus", "What the controller last saw.", {
    "availableReplicas": (INT32, "Pods ready for at least minReadySeconds."),
    "conditions": (array(ref(CORE + "ReplicationControllerCondition"), "type"), "Its conditions."),
    "fullyLabeledReplicas": (INT32, "Pods whose labels match the template's."),
    "observedGeneration": (INT64, "The generation last acted on."),
    "readyReplicas": (INT32, "Pods that are ready."),
    "replicas": (INT32, "Pods it counts."),
}, required=("replicas",))
define(CORE + "ReplicationControllerCondition", "One condition of a replication controller.", {
    "lastTransitionTime": (TIME, "When the status last changed."),
    "message": (STRING, "Details of the last transition."),
    "reason": (STRING, "A CamelCase reason."),
    "status": (STRING, "True, False or Unknown."),
    "type": (STRING, "The condition's type."),
}, required=("status", "type"))
