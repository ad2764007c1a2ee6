"""The discovery.k8s.io group (v1): EndpointSlices, the endpoints of a Service as kube-proxy and kubectl read them."""

from __future__ import annotations

from .model import BOOL, INT32, OPEN, STRING, STRINGS, array, define, enum, kind, map_of, ref

_DISCOVERY = "io.k8s.api.discovery.v1."
_OBJECT_REF = ref("io.k8s.api.core.v1.ObjectReference")

kind("discovery.k8s.io", "v1", "EndpointSlice", _DISCOVERY + "EndpointSlice",
     "A subset of the endpoints that implement a Service, managed by the EndpointSlice controller.", extra={
         "addressType": (enum("IPv4", "IPv6", "FQDN"), "The type of the slice's addresses; cannot change."),
         "endpoints": (array(ref(_DISCOVERY + "Endpoint"), list_type="atomic"), "The endpoints of the slice."),
         "ports": (array(ref(_DISCOVERY + "EndpointPort"), list_type="atomic"), "The ports every endpoint exposes."),
     }, required=("addressType", "endpoints"))
define(_DISCOVERY + "Endpoint", "One endpoint of a Service.", {
    "addresses": (STRINGS, "The endpoint's addresses (one, the Pod IP)."),
    "conditions": (ref(_DISCOVERY + "EndpointConditions"), "Whether the endpoint is ready, serving, terminating."),
    "deprecatedTopology": (map_of(STRING), "Topology labels of the endpoint (deprecated)."),
    "hints": (OPEN, "Where the endpoint should be consumed."),
    "hostname": (STRING, "The endpoint's host name."),
    "nodeName": (STRING, "The node that hosts the endpoint."),
    "targetRef": (_OBJECT_REF, "The Pod behind the endpoint."),
    "zone": (STRING, "The zone the endpoint is in."),
}, required=("addresses",))
define(_DISCOVERY + "EndpointConditions", "The state of one endpoint.", {
    "ready": (BOOL, "Ready for traffic (serving and not terminating)."),
    "serving": (BOOL, "Serving, whether or not terminating."),
    "terminating": (BOOL, "Terminating."),
})
define(_DISCOVERY + "EndpointPort", "One port of a slice's endpoints.", {
    "appProtocol": (STRING, "The application protocol."),
    "name": (STRING, "The Service port's name."),
    "port": (INT32, "The port number."),
    "protocol": (STRING, "TCP, UDP or SCTP."),
})
