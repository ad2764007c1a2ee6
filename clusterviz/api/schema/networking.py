"""The networking.k8s.io group (v1): Ingresses, which route outside HTTP traffic to Services, and IngressClasses."""

from __future__ import annotations

from .model import CORE, INT32, STRING, STRINGS, array, define, enum, kind, ref

_NET = "io.k8s.api.networking.v1."

kind("networking.k8s.io", "v1", "Ingress", _NET + "Ingress",
     "Rules that let inbound HTTP(S) connections reach the Services of a namespace: by host, by path, with TLS.",
     _NET + "IngressSpec", _NET + "IngressStatus")
define(_NET + "IngressSpec", "The routes the Ingress asks its controller for.", {
    "defaultBackend": (ref(_NET + "IngressBackend"), "Where requests that match no rule go."),
    "ingressClassName": (STRING, "The IngressClass whose controller implements this Ingress."),
    "rules": (array(ref(_NET + "IngressRule")), "Host rules, each with its HTTP paths."),
    "tls": (array(ref(_NET + "IngressTLS")), "The hosts served over TLS on port 443, and their certificate's Secret."),
})
define(_NET + "IngressRule", "The paths of one host (every host when host is empty).", {
    "host": (STRING, "A DNS name, or a wildcard such as *.example.com matching a single label."),
    "http": (ref(_NET + "HTTPIngressRuleValue"), "The host's HTTP paths."),
})
define(_NET + "HTTPIngressRuleValue", "A list of paths, each to a backend.", {
    "paths": (array(ref(_NET + "HTTPIngressPath")), "The paths matched against the request's URL path."),
}, required=("paths",))
define(_NET + "HTTPIngressPath", "One path and the backend its requests go to.", {
    "backend": (ref(_NET + "IngressBackend"), "The Service (or resource) the matching requests go to."),
    "path": (STRING, "The path matched against the request's URL path; it must begin with '/'."),
    "pathType": (enum("Exact", "ImplementationSpecific", "Prefix"),
                 "How path is matched: Exact, Prefix (element by element) or ImplementationSpecific."),
}, required=("pathType", "backend"))
define(_NET + "IngressBackend", "A Service and port, or another resource of the namespace.", {
    "resource": (ref(CORE + "TypedLocalObjectReference"), "Another resource of the namespace, instead of a Service."),
    "service": (ref(_NET + "IngressServiceBackend"), "A Service of the namespace."),
})
define(_NET + "IngressServiceBackend", "A Service of the Ingress's namespace and one of its ports.", {
    "name": (STRING, "The Service's name."),
    "port": (ref(_NET + "ServiceBackendPort"), "The Service's port, by name or by number."),
}, required=("name",))
define(_NET + "ServiceBackendPort", "A port of a Service, by name or by number.", {
    "name": (STRING, "The port's name on the Service."),
    "number": (INT32, "The port's number on the Service."),
})
define(_NET + "IngressTLS", "Hosts served over TLS and the Secret holding their certificate.", {
    "hosts": (STRINGS, "The hosts the certificate covers."),
    "secretName": (STRING, "The Secret holding the certificate and key."),
})
define(_NET + "IngressStatus", "What the Ingress's controller reports.", {
    "loadBalancer": (ref(_NET + "IngressLoadBalancerStatus"), "The load balancer's addresses."),
})
define(_NET + "IngressLoadBalancerStatus", "The addresses of the load balancer serving the Ingress.", {
    "ingress": (array(ref(_NET + "IngressLoadBalancerIngress")), "The load balancer's ingress points."),
})
define(_NET + "IngressLoadBalancerIngress", "One ingress point of the load balancer.", {
    "hostname": (STRING, "A DNS-based ingress point."),
    "ip": (STRING, "An IP-based ingress point."),
    "ports": (array(ref(_NET + "IngressPortStatus")), "The ports the load balancer exposes."),
})
define(_NET + "IngressPortStatus", "The state of one port of the load balancer.", {
    "error": (STRING, "What is wrong with the port, if anything."),
    "port": (INT32, "The port's number."),
    "protocol": (enum("SCTP", "TCP", "UDP"), "The port's protocol."),
}, required=("port", "protocol"))

kind("networking.k8s.io", "v1", "IngressClass", _NET + "IngressClass",
     "A class of Ingresses and the controller that implements them; the "
     "ingressclass.kubernetes.io/is-default-class annotation makes it the default.",
     _NET + "IngressClassSpec")
define(_NET + "IngressClassSpec", "The controller of the class and its parameters.", {
    "controller": (STRING, "The controller's domain-prefixed name, such as example.com/ingress-controller; immutable."),
    "parameters": (ref(_NET + "IngressClassParametersReference"), "An object holding the controller's settings."),
})
define(_NET + "IngressClassParametersReference", "The object an IngressClass takes its controller's settings from.", {
    "apiGroup": (STRING, "The object's API group (the core group when empty)."),
    "kind": (STRING, "The object's kind."),
    "name": (STRING, "The object's name."),
    "namespace": (STRING, "The object's namespace, when scope is Namespace."),
    "scope": (STRING, "Cluster (the default) or Namespace."),
}, required=("kind", "name"))
