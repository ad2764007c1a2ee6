"""The apiregistration.k8s.io group (v1): APIServices, which tell the aggregator where each API group version is served."""

from __future__ import annotations

from .model import BOOL, BYTES, INT32, STRING, TIME, array, define, kind, ref

_REG = "io.k8s.kube-aggregator.pkg.apis.apiregistration.v1."

kind("apiregistration.k8s.io", "v1", "APIService", _REG + "APIService",
     "Where one group version of the API is served: by this API server (Local), or by the Service of an extension "
     "API server the aggregator proxies to. Its name must be version.group.",
     _REG + "APIServiceSpec", _REG + "APIServiceStatus")
define(_REG + "APIServiceSpec", "How to reach the server of the group version, and how it ranks in discovery.", {
    "caBundle": (BYTES, "A PEM CA bundle that validates the extension server's serving certificate."),
    "group": (STRING, "The API group the server hosts."),
    "groupPriorityMinimum": (INT32, "The priority the group has at least, 1 to 20000; higher groups come first in "
                                    "discovery (*.k8s.io groups are at about 18000)."),
    "insecureSkipTLSVerify": (BOOL, "Skip checking the extension server's certificate; strongly discouraged."),
    "service": (ref(_REG + "ServiceReference"), "The Service of the extension server; empty when this API server "
                                                "serves the group version itself."),
    "version": (STRING, "The API version the server hosts, such as v1."),
    "versionPriority": (INT32, "The version's order inside its group, 1 to 1000; the highest is preferred."),
}, required=("groupPriorityMinimum", "versionPriority"))
define(_REG + "ServiceReference", "A Service, by namespace and name, and its port.", {
    "name": (STRING, "The Service's name."),
    "namespace": (STRING, "The Service's namespace."),
    "port": (INT32, "The Service's port the extension server listens on; 443 by default."),
})
define(_REG + "APIServiceStatus", "Whether the aggregator can reach the group version's server.", {
    "conditions": (array(ref(_REG + "APIServiceCondition"), "type"), "Available, with why when it is not."),
})
define(_REG + "APIServiceCondition", "One condition of an APIService.", {
    "lastTransitionTime": (TIME, "When the condition last changed status."),
    "message": (STRING, "Details for people."),
    "reason": (STRING, "Why, in one CamelCase word: Local, Passed, ServiceNotFound, MissingEndpoints, "
                       "FailedDiscoveryCheck."),
    "status": (STRING, "True, False or Unknown."),
    "type": (STRING, "Available."),
}, required=("type", "status"))
