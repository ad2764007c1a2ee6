"""``kubectl describe`` text for the objects the dashboard shows (pure functions over API objects).

kubectl builds describe output on the client side from the object and a few
related lists; this does the same with the same headings, so the page reads
like the terminal. The Events table under it is rendered by the page from the
API's own Event Table.
"""

from __future__ import annotations

import re
from typing import Any

from clusterviz.api import clock
from clusterviz.api.tables import format_label_selector

from .tabwriter import tabwrite

# kubectl describe leaves this annotation out: it is a copy of the whole manifest.
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# kubectl describe's tabwriter (k8s.io/kubectl describe.tabbedString): minwidth 0, padding 2.
DESCRIBE_PADDING = 2


class Text:
    """What kubectl's describers write: lines of tab-separated cells at indent levels, laid out by its tabwriter.

    ``add`` writes ``Key:<tab>value`` (a heading ``Key:`` without a value), ``more`` a
    continuation ``<tab>value`` aligned under the value above it, ``raw`` a free line
    and ``write`` anything with tabs, as kubectl's PrefixWriter does. Alignment
    follows Go's tabwriter (padding 2), so it matches kubectl line for line.
    """

    def __init__(self) -> None:
        self.lines: list[str] = []

    def write(self, level: int, line: str) -> None:
        """One line at ``level`` (two spaces each), with tabs between its cells."""
        self.lines.append("  " * level + line)

    def add(self, level: int, key: str, value: Any = "") -> None:
        """``Key:  value``, or a heading ``Key:`` when there is no value."""
        value = str(value)
        self.write(level, f"{key}:\t{value}" if value else f"{key}:")

    def more(self, level: int, value: str) -> None:
        """Another line of the previous key's value, aligned under it."""
        self.write(level, f"\t{value}")

    def raw(self, level: int, text: str) -> None:
        """A line kept as it is (list items, headings of tables)."""
        self.write(level, text.replace("\t", " "))

    def mapping(self, level: int, key: str, values: dict[str, Any] | None, skip: tuple[str, ...] = ()) -> None:
        """A map as kubectl prints labels: first pair beside the key, the rest aligned under it."""
        pairs = [f"{k}={v}" for k, v in sorted((values or {}).items()) if k not in skip]
        self.add(level, key, pairs[0] if pairs else "<none>")
        for pair in pairs[1:]:
            self.more(level, pair)

    def __str__(self) -> str:
        return "\n".join(tabwrite([line.split("\t") for line in self.lines], DESCRIBE_PADDING))


def timestamp(value: Any) -> str:
    """RFC 3339 as kubectl describe prints times (RFC 1123 with a numeric zone)."""
    moment = clock.parse(value) if isinstance(value, str) else None
    return moment.strftime("%a, %d %b %Y %H:%M:%S %z") if moment else "<unset>"


def _header(text: Text, obj: dict[str, Any]) -> None:
    meta = obj.get("metadata") or {}
    text.add(0, "Name", meta.get("name", ""))
    if meta.get("namespace"):
        text.add(0, "Namespace", meta["namespace"])
    text.mapping(0, "Labels", meta.get("labels"))
    text.mapping(0, "Annotations", meta.get("annotations"), skip=(LAST_APPLIED,))
    text.add(0, "CreationTimestamp", timestamp(meta.get("creationTimestamp")))


def _controller(obj: dict[str, Any]) -> str:
    for ref in (obj.get("metadata") or {}).get("ownerReferences") or []:
        if ref.get("controller"):
            return f"{ref.get('kind')}/{ref.get('name')}"
    return ""


def _port(port: dict[str, Any], field: str = "containerPort") -> str:
    return f"{port.get(field, 0)}/{port.get('protocol', 'TCP')}"


def _containers(
    text: Text, level: int, containers: list[dict[str, Any]], statuses: list[dict[str, Any]] | None
) -> None:
    by_name = {s.get("name"): s for s in statuses or []}
    text.add(level, "Containers")
    for container in containers:
        text.add(level + 1, container.get("name", ""))
        text.add(level + 2, "Image", container.get("image", ""))
        ports = container.get("ports") or []
        text.add(level + 2, "Port", ", ".join(_port(p) for p in ports) or "<none>")
        text.add(level + 2, "Host Port", ", ".join(_port(p, "hostPort") for p in ports) or "<none>")
        for heading in ("requests", "limits"):
            values = (container.get("resources") or {}).get(heading)
            if values:
                text.add(level + 2, heading.capitalize())
                for key, value in sorted(values.items()):
                    text.add(level + 3, key, value)
        status = by_name.get(container.get("name"))
        if statuses is not None and status:
            state = status.get("state") or {}
            phase = next(iter(state), "Waiting")
            text.add(level + 2, "State", phase.capitalize())
            detail = state.get(phase) or {}
            if detail.get("reason"):
                text.add(level + 3, "Reason", detail["reason"])
            if detail.get("startedAt"):
                text.add(level + 3, "Started", timestamp(detail["startedAt"]))
            text.add(level + 2, "Ready", str(bool(status.get("ready"))))
            text.add(level + 2, "Restart Count", status.get("restartCount", 0))


def _conditions(text: Text, conditions: list[dict[str, Any]], with_reason: bool) -> None:
    text.add(0, "Conditions")
    if not conditions:
        text.raw(1, "<none>")
        return
    rows = [("Type", "Status", "Reason") if with_reason else ("Type", "Status")]
    rows += [
        (c.get("type", ""), c.get("status", ""), c.get("reason", ""))
        if with_reason
        else (c.get("type", ""), c.get("status", ""))
        for c in conditions
    ]
    widths = [max(len(str(row[i])) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        text.raw(1, "  ".join(str(cell).ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())


def _pod_template(text: Text, template: dict[str, Any]) -> None:
    text.add(0, "Pod Template")
    text.mapping(1, "Labels", (template.get("metadata") or {}).get("labels"))
    _containers(text, 1, (template.get("spec") or {}).get("containers") or [], None)


def describe_pod(pod: dict[str, Any]) -> Text:
    """``kubectl describe pod`` without its Events, field by field as kubectl's describePod writes it."""
    text = Text()
    meta, spec, status = pod.get("metadata") or {}, pod.get("spec") or {}, pod.get("status") or {}
    text.add(0, "Name", meta.get("name", ""))
    text.write(0, f"Namespace:\t{meta.get('namespace', '')}")
    if spec.get("priority") is not None:
        text.add(0, "Priority", spec["priority"])
    if spec.get("priorityClassName"):
        text.add(0, "Priority Class Name", spec["priorityClassName"])
    if spec.get("serviceAccountName"):
        text.add(0, "Service Account", spec["serviceAccountName"])
    node = spec.get("nodeName")
    text.add(0, "Node", f"{node}/{status.get('hostIP', '')}" if node else "<none>")
    if status.get("startTime"):
        text.add(0, "Start Time", timestamp(status["startTime"]))
    text.mapping(0, "Labels", meta.get("labels"))
    annotations = [f"{k}: {v}" for k, v in sorted((meta.get("annotations") or {}).items()) if k != LAST_APPLIED]
    text.add(0, "Annotations", annotations[0] if annotations else "<none>")
    for annotation in annotations[1:]:
        text.more(0, annotation)
    if meta.get("deletionTimestamp") and status.get("phase") not in ("Failed", "Succeeded"):
        text.add(0, "Status", "Terminating")
        text.add(0, "Termination Grace Period", f"{meta.get('deletionGracePeriodSeconds', 0)}s")
    else:
        text.write(0, f"Status:\t{status.get('phase', '')}")
    for key, label in (("reason", "Reason"), ("message", "Message")):
        if status.get(key):
            text.add(0, label, status[key])
    text.write(0, f"IP:\t{status.get('podIP', '')}")
    ips = [ip.get("ip", "") for ip in status.get("podIPs") or []]
    if ips:
        text.add(0, "IPs")
        for ip in ips:
            text.add(1, "IP", ip)
    else:
        text.add(0, "IPs", "<none>")
    if _controller(pod):
        text.add(0, "Controlled By", _controller(pod))
    if status.get("nominatedNodeName"):
        text.add(0, "NominatedNodeName", status["nominatedNodeName"])
    if spec.get("initContainers"):
        _pod_containers(text, "Init Containers", pod, spec["initContainers"], status.get("initContainerStatuses") or [])
    _pod_containers(text, "Containers", pod, spec.get("containers") or [], status.get("containerStatuses") or [])
    if status.get("conditions"):
        text.raw(0, "Conditions:")
        text.write(1, "Type\tStatus")
        for condition in status["conditions"]:
            text.write(1, f"{condition.get('type', '')} \t{condition.get('status', '')} ")
    _volumes(text, spec.get("volumes") or [])
    text.add(0, "QoS Class", status.get("qosClass") or qos_class(spec))
    text.mapping(0, "Node-Selectors", spec.get("nodeSelector"))
    tolerations = [_toleration(t) for t in sorted(spec.get("tolerations") or [], key=lambda t: t.get("key", ""))]
    text.add(0, "Tolerations", tolerations[0] if tolerations else "<none>")
    for toleration in tolerations[1:]:
        text.more(0, toleration)
    constraints = [
        f"{c.get('topologyKey', '')}:{c.get('whenUnsatisfiable', '')} when max skew {c.get('maxSkew', 0)} is exceeded"
        + (f" for selector {format_label_selector(c['labelSelector'])}" if c.get("labelSelector") else "")
        for c in spec.get("topologySpreadConstraints") or []
    ]
    if constraints:
        text.add(0, "Topology Spread Constraints", constraints[0])
        for constraint in constraints[1:]:
            text.more(0, constraint)
    return text


def qos_class(spec: dict[str, Any]) -> str:
    """The Pod's QoS class from its containers' requests and limits (BestEffort, Burstable, Guaranteed)."""
    containers = [*(spec.get("initContainers") or []), *(spec.get("containers") or [])]
    resources = [c.get("resources") or {} for c in containers]
    if not any(r.get("requests") or r.get("limits") for r in resources):
        return "BestEffort"
    for r in resources:
        limits, requests = r.get("limits") or {}, {**(r.get("limits") or {}), **(r.get("requests") or {})}
        if any(limits.get(name) is None or str(limits[name]) != str(requests.get(name)) for name in ("cpu", "memory")):
            return "Burstable"
    return "Guaranteed"


def _toleration(toleration: dict[str, Any]) -> str:
    """One toleration as kubectl prints it: ``key=value:Effect op=Exists for 300s``."""
    out = toleration.get("key", "")
    if toleration.get("value"):
        out += f"={toleration['value']}"
    if toleration.get("effect"):
        out += f":{toleration['effect']}"
    if toleration.get("operator") == "Exists" and not toleration.get("value"):
        out += " op=Exists" if toleration.get("key") or toleration.get("effect") else "op=Exists"
    if toleration.get("tolerationSeconds") is not None:
        out += f" for {toleration['tolerationSeconds']}s"
    return out


def _probe(probe: dict[str, Any]) -> str:
    """A probe as kubectl's DescribeProbe prints it."""
    attrs = (
        f"delay={probe.get('initialDelaySeconds', 0)}s timeout={probe.get('timeoutSeconds', 1)}s "
        f"period={probe.get('periodSeconds', 10)}s #success={probe.get('successThreshold', 1)} "
        f"#failure={probe.get('failureThreshold', 3)}"
    )
    if probe.get("exec"):
        return f"exec [{' '.join(probe['exec'].get('command') or [])}] {attrs}"
    if probe.get("httpGet"):
        get = probe["httpGet"]
        scheme = str(get.get("scheme", "HTTP")).lower()
        return f"http-get {scheme}://{get.get('host', '')}:{get.get('port', '')}{get.get('path', '')} {attrs}"
    if probe.get("tcpSocket"):
        return f"tcp-socket {probe['tcpSocket'].get('host', '')}:{probe['tcpSocket'].get('port', '')} {attrs}"
    if probe.get("grpc"):
        return f"grpc <pod>:{probe['grpc'].get('port', '')} {probe['grpc'].get('service', '')} {attrs}"
    return f"unknown {attrs}"


def _container_state(text: Text, label: str, state: dict[str, Any]) -> None:
    """describeStatus: Running with its start, Waiting with its reason, Terminated with its exit."""
    if "running" in state:
        text.add(2, label, "Running")
        text.add(3, "Started", timestamp((state["running"] or {}).get("startedAt")))
    elif "terminated" in state:
        done = state["terminated"] or {}
        text.add(2, label, "Terminated")
        for key, name in (("reason", "Reason"), ("message", "Message")):
            if done.get(key):
                text.add(3, name, done[key])
        text.add(3, "Exit Code", done.get("exitCode", 0))
        if done.get("signal"):
            text.add(3, "Signal", done["signal"])
        text.add(3, "Started", timestamp(done.get("startedAt")))
        text.add(3, "Finished", timestamp(done.get("finishedAt")))
    else:
        text.add(2, label, "Waiting")
        if (state.get("waiting") or {}).get("reason"):
            text.add(3, "Reason", state["waiting"]["reason"])


def _pod_containers(
    text: Text, label: str, pod: dict[str, Any], containers: list[dict[str, Any]], statuses: list[dict[str, Any]]
) -> None:
    """describeContainers: each container's image, ports, state, resources, probes, environment and mounts."""
    meta = pod.get("metadata") or {}
    by_name = {s.get("name"): s for s in statuses}
    text.raw(0, f"{label}:")
    for container in containers:
        status = by_name.get(container.get("name"))
        text.raw(1, f"{container.get('name', '')}:")
        if status is not None:
            text.write(2, f"Container ID:\t{status.get('containerID', '')}")
        text.add(2, "Image", container.get("image", ""))
        if status is not None:
            text.write(2, f"Image ID:\t{status.get('imageID', '')}")
        ports = container.get("ports") or []
        container_ports = ", ".join(_port(p) for p in ports)
        host_ports = ", ".join(_port(p, "hostPort") for p in ports)
        text.add(2, "Ports" if "," in container_ports else "Port", container_ports or "<none>")
        text.add(2, "Host Ports" if "," in host_ports else "Host Port", host_ports or "<none>")
        for field, heading in (("command", "Command"), ("args", "Args")):
            if container.get(field):
                text.raw(2, f"{heading}:")
                for word in container[field]:
                    for line in str(word).split("\n"):
                        text.raw(3, line)
        if status is not None:
            _container_state(text, "State", status.get("state") or {})
            if (status.get("lastState") or {}).get("terminated"):
                _container_state(text, "Last State", status["lastState"])
            text.add(2, "Ready", "True" if status.get("ready") else "False")
            text.add(2, "Restart Count", status.get("restartCount", 0))
        for heading in ("limits", "requests"):
            values = (container.get("resources") or {}).get(heading)
            if values:
                text.raw(2, f"{heading.capitalize()}:")
                for key, value in sorted(values.items()):
                    text.add(3, key, value)
        for probe, heading in PROBES:
            if container.get(probe):
                text.add(2, heading, _probe(container[probe]))
        env = container.get("env") or []
        text.write(2, "Environment:" + ("" if env else "\t<none>"))
        for var in env:
            if "valueFrom" in var:
                text.write(3, f"{var.get('name', '')}:\t{_value_from(var['valueFrom'], meta)}")
                continue
            first, *rest = str(var.get("value", "")).split("\n")
            text.write(3, f"{var.get('name', '')}:\t{first}")
            for line in rest:
                text.more(3, line)
        mounts = sorted(container.get("volumeMounts") or [], key=lambda m: m.get("mountPath", ""))
        text.write(2, "Mounts:" + ("" if mounts else "\t<none>"))
        for mount in mounts:
            flags = ["ro" if mount.get("readOnly") else "rw"]
            if mount.get("subPath"):
                flags.append(f'path="{mount["subPath"]}"')
            text.raw(3, f"{mount.get('mountPath', '')} from {mount.get('name', '')} ({','.join(flags)})")


def _value_from(source: dict[str, Any], meta: dict[str, Any]) -> str:
    """An environment variable set from elsewhere, as kubectl describes where (and its value, when kubectl knows it)."""
    if source.get("fieldRef"):
        ref = source["fieldRef"]
        path = ref.get("fieldPath", "")
        # kubectl resolves only the Pod's own metadata (fieldpath.ExtractFieldPathAsString).
        value = {"metadata.name": meta.get("name"), "metadata.namespace": meta.get("namespace"),
                 "metadata.uid": meta.get("uid")}.get(path) or ""
        return f"{value} ({ref.get('apiVersion', 'v1')}:{path})"
    for key, noun in (("configMapKeyRef", "config map"), ("secretKeyRef", "secret")):
        if source.get(key):
            ref = source[key]
            optional = str(bool(ref.get("optional"))).lower()
            return f"<set to the key '{ref.get('key', '')}' of {noun} '{ref.get('name', '')}'>\tOptional: {optional}"
    return "<set from a source>"


# Probes kubectl describes, by field: the heading of each.
PROBES = (("livenessProbe", "Liveness"), ("readinessProbe", "Readiness"), ("startupProbe", "Startup"))
# Volume sources kubectl describes: (field, type line, [(heading, field in the source, default)]).
VOLUME_SOURCES = (
    ("hostPath", "HostPath (bare host directory volume)", (("Path", "path", ""), ("HostPathType", "type", ""))),
    ("emptyDir", "EmptyDir (a temporary directory that shares a pod's lifetime)",
     (("Medium", "medium", ""), ("SizeLimit", "sizeLimit", "<unset>"))),
    ("configMap", "ConfigMap (a volume populated by a ConfigMap)",
     (("Name", "name", ""), ("Optional", "optional", False))),
    ("secret", "Secret (a volume populated by a Secret)",
     (("SecretName", "secretName", ""), ("Optional", "optional", False))),
    ("persistentVolumeClaim", "PersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)",
     (("ClaimName", "claimName", ""), ("ReadOnly", "readOnly", False))),
)


def _optional_flag(source: dict[str, Any]) -> str:
    """A ``*bool`` as Go's %v prints it: <nil> when unset."""
    value = source.get("optional")
    return "<nil>" if value is None else str(value).lower()


def _projected(text: Text, projected: dict[str, Any]) -> None:
    """printProjectedVolumeSource: a line or two per source (a service account token volume has three)."""
    text.write(2, "Type:\tProjected (a volume that contains injected data from multiple sources)")
    for source in projected.get("sources") or []:
        if not isinstance(source, dict):
            continue
        if isinstance(source.get("secret"), dict):
            text.write(2, f"SecretName:\t{source['secret'].get('name', '')}")
            text.write(2, f"SecretOptionalName:\t{_optional_flag(source['secret'])}")
        elif source.get("downwardAPI") is not None:
            text.write(2, "DownwardAPI:\ttrue")
        elif isinstance(source.get("configMap"), dict):
            text.write(2, f"ConfigMapName:\t{source['configMap'].get('name', '')}")
            text.write(2, f"ConfigMapOptional:\t{_optional_flag(source['configMap'])}")
        elif isinstance(source.get("serviceAccountToken"), dict):
            text.write(2, f"TokenExpirationSeconds:\t{source['serviceAccountToken'].get('expirationSeconds', 3600)}")


def _volumes(text: Text, volumes: list[dict[str, Any]]) -> None:
    """describeVolumes: each volume's type and the fields of its source."""
    if not volumes:
        text.add(0, "Volumes", "<none>")
        return
    text.raw(0, "Volumes:")
    for volume in volumes:
        text.raw(1, f"{volume.get('name', '')}:")
        if isinstance(volume.get("projected"), dict):
            _projected(text, volume["projected"])
            continue
        for field, kind, fields in VOLUME_SOURCES:
            if field in volume:
                source = volume[field] or {}
                text.write(2, f"Type:\t{kind}")
                for heading, key, default in fields:
                    value = source.get(key, default)
                    text.write(2, f"{heading}:\t{str(value).lower() if isinstance(value, bool) else value}")
                break
        else:
            text.write(2, "Type:\t<unknown>")


def describe_deployment(deployment: dict[str, Any], replicasets: list[dict[str, Any]]) -> Text:
    """``kubectl describe deployment``, with its old and new ReplicaSets from ``replicasets``."""
    text = Text()
    spec, status = deployment.get("spec") or {}, deployment.get("status") or {}
    _header(text, deployment)
    text.add(0, "Selector", format_label_selector(spec.get("selector")))
    replicas = status.get("replicas", 0)
    text.add(
        0,
        "Replicas",
        f"{spec.get('replicas', 1)} desired | {status.get('updatedReplicas', 0)} updated | "
        f"{replicas} total | {status.get('availableReplicas', 0)} available | "
        f"{status.get('unavailableReplicas', 0)} unavailable",
    )
    strategy = spec.get("strategy") or {}
    text.add(0, "StrategyType", strategy.get("type", "RollingUpdate"))
    text.add(0, "MinReadySeconds", spec.get("minReadySeconds", 0))
    if strategy.get("type", "RollingUpdate") == "RollingUpdate":
        rolling = strategy.get("rollingUpdate") or {}
        text.add(
            0,
            "RollingUpdateStrategy",
            f"{rolling.get('maxUnavailable', '25%')} max unavailable, {rolling.get('maxSurge', '25%')} max surge",
        )
    _pod_template(text, spec.get("template") or {})
    _conditions(text, status.get("conditions") or [], with_reason=True)
    owned = [rs for rs in replicasets if _controller(rs) == f"Deployment/{deployment['metadata']['name']}"]
    owned.sort(
        key=lambda rs: int((rs["metadata"].get("annotations") or {}).get("deployment.kubernetes.io/revision", 0))
    )

    def created(rs: dict[str, Any]) -> str:
        return (
            f"{rs['metadata']['name']} ({(rs.get('status') or {}).get('replicas', 0)}/"
            f"{(rs.get('spec') or {}).get('replicas', 1)} replicas created)"
        )

    old = [
        created(rs)
        for rs in owned[:-1]
        if (rs.get("spec") or {}).get("replicas") or (rs.get("status") or {}).get("replicas")
    ]
    text.add(0, "OldReplicaSets", ", ".join(old) or "<none>")
    text.add(0, "NewReplicaSet", created(owned[-1]) if owned else "<none>")
    return text


def describe_replicated(workload: dict[str, Any], pods: list[dict[str, Any]]) -> Text:
    """A ReplicaSet or ReplicationController, with its Pods' phases counted as kubectl counts them."""
    text = Text()
    spec, status = workload.get("spec") or {}, workload.get("status") or {}
    _header(text, workload)
    selector = spec.get("selector") or {}
    text.add(
        0,
        "Selector",
        format_label_selector(selector)
        if "matchLabels" in selector or "matchExpressions" in selector
        else ",".join(f"{k}={v}" for k, v in sorted(selector.items())) or "<none>",
    )
    if _controller(workload):
        text.add(0, "Controlled By", _controller(workload))
    text.add(0, "Replicas", f"{status.get('replicas', 0)} current / {spec.get('replicas', 1)} desired")
    owned = [
        p
        for p in pods
        if (p.get("metadata") or {}).get("ownerReferences")
        and any(r.get("uid") == workload["metadata"].get("uid") for r in p["metadata"]["ownerReferences"])
    ]
    phases = [(p.get("status") or {}).get("phase", "Pending") for p in owned]
    text.add(
        0,
        "Pods Status",
        f"{phases.count('Running')} Running / {phases.count('Pending')} Waiting / "
        f"{phases.count('Succeeded')} Succeeded / {phases.count('Failed')} Failed",
    )
    _pod_template(text, spec.get("template") or {})
    return text


def _endpoint_addresses(endpoints: dict[str, Any] | None) -> str:
    addresses: list[str] = []
    for subset in (endpoints or {}).get("subsets") or []:
        for address in subset.get("addresses") or []:
            addresses.extend(f"{address.get('ip')}:{port.get('port')}" for port in subset.get("ports") or [{}])
    return ",".join(addresses) or "<none>"


def describe_service(service: dict[str, Any], endpoints: dict[str, Any] | None) -> Text:
    """``kubectl describe service``, with the addresses of its Endpoints object."""
    text = Text()
    spec = service.get("spec") or {}
    _header(text, service)
    text.add(0, "Selector", ",".join(f"{k}={v}" for k, v in sorted((spec.get("selector") or {}).items())) or "<none>")
    text.add(0, "Type", spec.get("type", "ClusterIP"))
    text.add(0, "IP", spec.get("clusterIP") or "None")
    for port in spec.get("ports") or []:
        text.add(0, "Port", f"{port.get('name') or '<unset>'}  {port.get('port')}/{port.get('protocol', 'TCP')}")
        text.add(0, "TargetPort", f"{port.get('targetPort', port.get('port'))}/{port.get('protocol', 'TCP')}")
        text.add(0, "Endpoints", _endpoint_addresses(endpoints))
    text.add(0, "Session Affinity", spec.get("sessionAffinity", "None"))
    return text


def describe_endpoints(endpoints: dict[str, Any]) -> Text:
    """``kubectl describe endpoints``: ready and not-ready addresses, and ports, per subset."""
    text = Text()
    _header(text, endpoints)
    text.add(0, "Subsets")
    for subset in endpoints.get("subsets") or []:
        text.add(1, "Addresses", ",".join(a.get("ip", "") for a in subset.get("addresses") or []) or "<none>")
        text.add(
            1, "NotReadyAddresses", ",".join(a.get("ip", "") for a in subset.get("notReadyAddresses") or []) or "<none>"
        )
        text.add(1, "Ports")
        for port in subset.get("ports") or []:
            text.raw(2, f"{port.get('name') or '<unset>'}  {port.get('port')}  {port.get('protocol', 'TCP')}")
    return text


def _unset(value: Any) -> str:
    return "<unset>" if value is None or value == "" else str(value).lower() if isinstance(value, bool) else str(value)


def describe_endpoint_slice(slice_: dict[str, Any]) -> Text:
    """``kubectl describe endpointslice``: the address type, the ports, then each endpoint with its condition."""
    text = Text()
    meta = slice_.get("metadata") or {}
    text.add(0, "Name", meta.get("name", ""))
    text.add(0, "Namespace", meta.get("namespace", ""))
    text.mapping(0, "Labels", meta.get("labels"))
    text.mapping(0, "Annotations", meta.get("annotations"), skip=(LAST_APPLIED,))
    text.add(0, "AddressType", slice_.get("addressType", ""))
    ports = [p for p in slice_.get("ports") or [] if isinstance(p, dict)]
    if ports:
        text.add(0, "Ports")
        text.write(1, "Name\tPort\tProtocol")
        text.write(1, "----\t----\t--------")
        for port in ports:
            text.write(1, f"{_unset(port.get('name'))}\t{_unset(port.get('port'))}\t{port.get('protocol', 'TCP')}")
    else:
        text.raw(0, "Ports: <unset>")
    endpoints = [e for e in slice_.get("endpoints") or [] if isinstance(e, dict)]
    if not endpoints:
        text.raw(0, "Endpoints: <none>")
        return text
    text.add(0, "Endpoints")
    for endpoint in endpoints:
        text.write(1, f"- Addresses:\t{', '.join(endpoint.get('addresses') or []) or '<none>'}")
        text.add(2, "Conditions")
        text.add(3, "Ready", _unset((endpoint.get("conditions") or {}).get("ready")))
        text.add(2, "Hostname", _unset(endpoint.get("hostname")))
        target = endpoint.get("targetRef")
        if isinstance(target, dict):
            text.add(2, "TargetRef", f"{target.get('kind', '')}/{target.get('name', '')}")
        text.add(2, "NodeName", _unset(endpoint.get("nodeName")))
        text.add(2, "Zone", _unset(endpoint.get("zone")))
    return text


def describe_node(node: dict[str, Any], pods: list[dict[str, Any]]) -> Text:
    """``kubectl describe node``: taints, conditions, resources and the Pods running there."""
    text = Text()
    spec, status = node.get("spec") or {}, node.get("status") or {}
    _header(text, node)
    taints = [
        f"{t.get('key')}{'=' + t['value'] if t.get('value') else ''}:{t.get('effect')}"
        for t in spec.get("taints") or []
    ]
    text.add(0, "Taints", taints[0] if taints else "<none>")
    for taint in taints[1:]:
        text.more(0, taint)
    text.add(0, "Unschedulable", str(bool(spec.get("unschedulable"))).lower())
    _conditions(text, status.get("conditions") or [], with_reason=True)
    text.add(0, "Addresses")
    for address in status.get("addresses") or []:
        text.add(1, address.get("type", ""), address.get("address", ""))
    for heading in ("capacity", "allocatable"):
        text.add(0, heading.capitalize())
        for key, value in sorted((status.get(heading) or {}).items()):
            text.add(1, key, value)
    info = status.get("nodeInfo") or {}
    text.add(0, "System Info")
    for label, key in (
        ("OS Image", "osImage"),
        ("Container Runtime Version", "containerRuntimeVersion"),
        ("Kubelet Version", "kubeletVersion"),
    ):
        text.add(1, label, info.get(key, ""))
    text.add(0, "PodCIDR", spec.get("podCIDR", ""))
    running = [
        p
        for p in pods
        if (p.get("spec") or {}).get("nodeName") == node["metadata"]["name"]
        and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
    ]
    text.add(0, "Non-terminated Pods", f"({len(running)} in total)")
    for pod in sorted(running, key=lambda p: (p["metadata"].get("namespace", ""), p["metadata"]["name"])):
        text.raw(1, f"{pod['metadata'].get('namespace', '')}/{pod['metadata']['name']}")
    return text


# What the generic describer leaves out of an object's fields: the header printed them, or nobody reads them.
_GENERIC_SKIPPED = frozenset({".metadata.managedFields", ".metadata.name", ".metadata.namespace", ".metadata.labels",
                              ".metadata.annotations"})
_ACRONYMS = frozenset({"API", "URL", "UID", "OSB", "GUID"})


def smart_label(field_name: str) -> str:
    """kubectl's smartLabelFor: ``cronSpec`` -> ``Cron Spec``, ``apiVersion`` -> ``API Version``; a name with
    characters other than letters and '-' stays as it is."""
    if any(not (c.isalpha() or c == "-") for c in field_name):
        return field_name
    parts = re.findall(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|-", field_name)
    return " ".join(p.upper() if p.upper() in _ACRONYMS else p[:1].upper() + p[1:] for p in parts)


def _go_value(value: Any) -> str:
    """A scalar as Go's %v prints a decoded JSON value."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "<nil>"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _unstructured(text: Text, level: int, content: dict[str, Any], prefix: str) -> None:
    for name in sorted(content):
        value, path = content[name], f"{prefix}.{name}"
        if path in _GENERIC_SKIPPED:
            continue
        if isinstance(value, dict):
            text.add(level, smart_label(name))
            _unstructured(text, level + 1, value, path)
        elif isinstance(value, list):
            text.add(level, smart_label(name))
            for item in value:
                if isinstance(item, dict):
                    _unstructured(text, level + 1, item, path)
                else:
                    text.raw(level + 1, _go_value(item))
        else:
            text.add(level, smart_label(name), _go_value(value))


def describe_other(obj: dict[str, Any]) -> Text:
    """Any kind without a describer of its own (custom resources, CustomResourceDefinitions...), as kubectl's
    generic describer prints it: the header, then every field, sorted, with its smart label."""
    text = Text()
    meta = obj.get("metadata") or {}
    text.add(0, "Name", meta.get("name", ""))
    text.add(0, "Namespace", meta.get("namespace", ""))
    text.mapping(0, "Labels", meta.get("labels"))
    text.mapping(0, "Annotations", meta.get("annotations"), skip=(LAST_APPLIED,))
    _unstructured(text, 0, obj, "")
    return text
