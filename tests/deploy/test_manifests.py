"""Schema-level checks of deploy/: the Kubernetes manifests and compose.yaml.

No cluster runs here, so these tests hold the manifests to what a cluster
and the images would demand: kinds and required fields, selectors that
select, probe and Service ports that name a container port, ports that
match what the Dockerfile exposes, ConfigMap keys that the programs read,
requests within limits, a grace period longer than the server's drain.

Run: LINKAGED=build/server/linkaged python3 -m pytest tests/deploy/test_manifests.py
"""
import os
import re
import subprocess
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
K8S = ROOT / "deploy" / "k8s"
LINKAGED = os.environ.get("LINKAGED", str(ROOT / "build" / "server" / "linkaged"))
LINKCTL = os.environ.get("LINKCTL", str(ROOT / "build" / "client" / "linkctl" / "linkctl"))

KNOWN_KINDS = {
    ("v1", "ConfigMap"),
    ("v1", "Service"),
    ("apps/v1", "Deployment"),
    ("monitoring.coreos.com/v1", "ServiceMonitor"),
}
# Applied by hand where the Prometheus Operator runs (its CRD defines the kind).
OPTIONAL = {"servicemonitor.yaml"}


def documents():
    docs = []
    for path in sorted(K8S.glob("*.yaml")):
        if path.name == "kustomization.yaml":
            continue
        for doc in yaml.safe_load_all(path.read_text()):
            if doc is not None:
                docs.append((path.name, doc))
    return docs


def of_kind(kind):
    return [doc for _, doc in documents() if doc["kind"] == kind]


def dockerfile_stages():
    """Each stage's EXPOSEd ports and ENV, by stage name."""
    stages, current = {}, None
    text = (ROOT / "deploy" / "Dockerfile").read_text().replace("\\\n", " ")
    for line in text.splitlines():
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "FROM":
            current = words[-1]
            stages[current] = {"expose": set(), "env": {}}
        elif words[0] == "EXPOSE":
            stages[current]["expose"].update(int(p.split("/")[0]) for p in words[1:])
        elif words[0] == "ENV":
            for pair in words[1:]:
                key, _, value = pair.partition("=")
                stages[current]["env"][key] = value
    return stages


def linkaged_env_names():
    out = subprocess.run([LINKAGED, "--help"], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"\(Env:(\w+)\)", out))


def linkctl_env_names():
    out = subprocess.run([LINKCTL, "--help"], capture_output=True, text=True, check=True).stdout
    return set(re.findall(r"\b(LINKCTL_[A-Z_]+)\b", out))


def gateway_env_names():
    config = (ROOT / "web" / "gateway" / "src" / "config.ts").read_text()
    return set(re.findall(r'env:\s*"(\w+)"', config))


def quantity(text):
    """A Kubernetes CPU or memory quantity ("250m", "2", "64Mi", "1Gi") as a number."""
    units = {"m": 1e-3, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "k": 1e3, "M": 1e6, "G": 1e9}
    match = re.fullmatch(r"([0-9.]+)([A-Za-z]*)", str(text))
    assert match and (match[2] == "" or match[2] in units), f"not a quantity: {text}"
    return float(match[1]) * units.get(match[2], 1)


def container_port(container, port):
    """The containerPort a probe or Service names, by number or by name."""
    for p in container.get("ports", []):
        if port in (p["containerPort"], p.get("name")):
            return p["containerPort"]
    return None


def test_every_document_is_a_known_kind_with_a_name():
    docs = documents()
    assert docs, "no manifests in deploy/k8s"
    for name, doc in docs:
        assert (doc.get("apiVersion"), doc.get("kind")) in KNOWN_KINDS, f"{name}: {doc.get('apiVersion')}/{doc.get('kind')}"
        assert re.fullmatch(r"[a-z0-9]([-a-z0-9]*[a-z0-9])?", doc["metadata"]["name"]), name


def test_kustomization_lists_every_manifest():
    kustomization = yaml.safe_load((K8S / "kustomization.yaml").read_text())
    listed = set(kustomization["resources"])
    on_disk = {p.name for p in K8S.glob("*.yaml")} - {"kustomization.yaml"}
    assert listed == on_disk - OPTIONAL
    assert OPTIONAL <= on_disk
    images = {i["name"] for i in kustomization["images"]}
    used = {c["image"] for d in of_kind("Deployment") for c in d["spec"]["template"]["spec"]["containers"]}
    assert used <= images, f"images without a kustomize entry: {used - images}"


def test_deployment_selects_its_pods_and_holds_one_replica_of_the_worlds():
    for d in of_kind("Deployment"):
        spec = d["spec"]
        labels = spec["template"]["metadata"]["labels"]
        assert spec["selector"]["matchLabels"].items() <= labels.items()
        # Worlds live in the pod's memory: two pods would hold different worlds.
        assert spec["replicas"] == 1 and spec["strategy"]["type"] == "Recreate"
        assert spec["template"]["spec"]["securityContext"]["runAsNonRoot"] is True


def test_probe_ports_are_the_containers_ports_and_the_images_ports():
    stages = dockerfile_stages()
    image_stage = {"linkage": "server", "linkage-web": "web"}
    for d in of_kind("Deployment"):
        for c in d["spec"]["template"]["spec"]["containers"]:
            exposed = stages[image_stage[c["image"]]]["expose"]
            declared = {p["containerPort"] for p in c["ports"]}
            assert declared == exposed, f"{c['name']}: ports {declared}, image exposes {exposed}"
            probes = [c[k] for k in ("startupProbe", "livenessProbe", "readinessProbe") if k in c]
            assert {"livenessProbe", "readinessProbe"} <= c.keys(), c["name"]
            for probe in probes:
                (handler,) = {"grpc", "httpGet", "tcpSocket", "exec"} & probe.keys()
                if handler != "exec":
                    assert container_port(c, probe[handler]["port"]) is not None, f"{c['name']}: {handler} port"
            r = c["resources"]
            for what in ("cpu", "memory"):
                assert what in r["requests"] and what in r["limits"], f"{c['name']}: {what}"
                assert quantity(r["requests"][what]) <= quantity(r["limits"][what]), f"{c['name']}: {what} request > limit"


def containers():
    return {c["name"]: c for d in of_kind("Deployment") for c in d["spec"]["template"]["spec"]["containers"]}


def env_of(container):
    return {e["name"]: e["value"] for e in container.get("env", [])}


def test_the_server_is_probed_with_grpc_health_checking_on_its_listen_port():
    # The kubelet's grpc probe speaks no TLS: linkctl health asks instead,
    # over TLS to the listen port, trusting the mounted CA (no token needed).
    server = containers()["linkaged"]
    env = env_of(server)
    listen_port = int(env.get("LINKAGE_LISTEN", dockerfile_stages()["server"]["env"]["LINKAGE_LISTEN"]).rsplit(":", 1)[1])
    assert int(env["LINKCTL_SERVER"].rsplit(":", 1)[1]) == listen_port
    assert set(k for k in env if k.startswith("LINKCTL_")) <= linkctl_env_names()
    for kind in ("startupProbe", "livenessProbe", "readinessProbe"):
        command = server[kind]["exec"]["command"]
        assert command[0] == "linkctl" and "health" in command, command
        timeout = float(command[command.index("--timeout") + 1])
        assert timeout < server[kind].get("timeoutSeconds", 1) or kind == "startupProbe", f"{kind}: linkctl outlives the probe"


def mounted_from_secret(container, pod, path):
    """The Secret a file path of the container comes from, or None."""
    secrets = {v["name"]: v["secret"]["secretName"] for v in pod["volumes"] if "secret" in v}
    for m in container.get("volumeMounts", []):
        if path.startswith(m["mountPath"].rstrip("/") + "/") and m["name"] in secrets:
            return secrets[m["name"]]
    return None


def test_the_server_runs_with_tls_and_tokens_from_secrets():
    (pod,) = [d["spec"]["template"]["spec"] for d in of_kind("Deployment")]
    server, gateway = containers()["linkaged"], containers()["gateway"]
    env = env_of(server)
    assert "LINKAGE_INSECURE" not in env
    for key in ("LINKAGE_TLS_CERT", "LINKAGE_TLS_KEY", "LINKAGE_TOKENS", "LINKCTL_TLS_CA"):
        assert mounted_from_secret(server, pod, env[key]), f"{key}={env[key]} is not a file of a mounted Secret"
    genv = env_of(gateway)
    for key in ("LINKAGE_UPSTREAM_CA", "LINKAGE_WEB_TLS_CERT", "LINKAGE_WEB_TLS_KEY"):
        assert mounted_from_secret(gateway, pod, genv[key]), f"gateway {key}={genv[key]} is not a file of a mounted Secret"
    assert set(genv) <= gateway_env_names()
    assert gateway["readinessProbe"]["httpGet"]["scheme"] == "HTTPS"


def test_grace_period_outlasts_the_servers_drain():
    # linkaged ends streams, then gives gRPC one second to drain.
    for d in of_kind("Deployment"):
        assert d["spec"]["template"]["spec"]["terminationGracePeriodSeconds"] >= 5


def test_configmap_keys_are_flags_the_programs_read():
    known = {"linkaged-flags": linkaged_env_names(), "gateway-flags": gateway_env_names()}
    maps = {m["metadata"]["name"]: m for m in of_kind("ConfigMap")}
    assert maps.keys() == known.keys()
    for name, m in maps.items():
        unknown = set(m["data"]) - known[name]
        assert not unknown, f"{name}: no program reads {unknown}"
        assert all(isinstance(v, str) for v in m["data"].values()), f"{name}: values must be strings"
    refs = {r["configMapRef"]["name"] for d in of_kind("Deployment")
            for c in d["spec"]["template"]["spec"]["containers"] for r in c.get("envFrom", [])}
    assert refs == maps.keys()


def test_service_selects_the_pods_and_targets_their_ports():
    pods = [(d["spec"]["template"]["metadata"]["labels"], d["spec"]["template"]["spec"]["containers"])
            for d in of_kind("Deployment")]
    for s in of_kind("Service"):
        matched = [containers for labels, containers in pods if s["spec"]["selector"].items() <= labels.items()]
        assert matched, "the Service selects no pod"
        for port in s["spec"]["ports"]:
            assert any(container_port(c, port["targetPort"]) for c in matched[0]), port["name"]


def listen_port(env, key):
    return int(env[key].rsplit(":", 1)[1])


def configmap(name):
    (m,) = [m for m in of_kind("ConfigMap") if m["metadata"]["name"] == name]
    return m["data"]


def test_prometheus_finds_linkaged_by_the_pod_annotations():
    (d,) = of_kind("Deployment")
    annotations = d["spec"]["template"]["metadata"]["annotations"]
    assert annotations["prometheus.io/scrape"] == "true"
    assert annotations["prometheus.io/path"] == "/metrics"
    server = containers()["linkaged"]
    port = listen_port(configmap("linkaged-flags"), "LINKAGE_METRICS_LISTEN")
    assert int(annotations["prometheus.io/port"]) == port == container_port(server, "metrics")
    assert listen_port(configmap("gateway-flags"), "LINKAGE_WEB_METRICS_LISTEN") == container_port(
        containers()["gateway"], "web-metrics"
    )


def test_the_servicemonitor_scrapes_both_metrics_ports_through_its_service():
    (monitor,) = of_kind("ServiceMonitor")
    selected = [s for s in of_kind("Service")
                if monitor["spec"]["selector"]["matchLabels"].items() <= s["metadata"].get("labels", {}).items()]
    assert [s["metadata"]["name"] for s in selected] == ["linkage-metrics"]
    ports = {p["name"]: p for p in selected[0]["spec"]["ports"]}
    endpoints = monitor["spec"]["endpoints"]
    assert {e["port"] for e in endpoints} == ports.keys() == {"metrics", "web-metrics"}
    assert all(e["path"] == "/metrics" for e in endpoints)
    # The Service's ports lead to the containers' metrics ports (checked
    # against the pods by test_service_selects_the_pods_and_targets_their_ports).
    assert ports["metrics"]["targetPort"] == "metrics" and ports["web-metrics"]["targetPort"] == "web-metrics"


def test_compose_binds_loopback_and_gates_the_gateway_on_health():
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    services = compose["services"]
    assert services.keys() == {"linkaged", "gateway"}
    for name, s in services.items():
        for mapping in s["ports"]:
            assert mapping.startswith("127.0.0.1:"), f"{name}: {mapping}"
        assert s["build"]["dockerfile"] == "deploy/Dockerfile" and s["build"]["target"] in dockerfile_stages()
    assert "test" in services["linkaged"]["healthcheck"]
    assert services["gateway"]["depends_on"]["linkaged"]["condition"] == "service_healthy"
    host, port = services["gateway"]["environment"]["LINKAGE_UPSTREAM"].split(":")
    assert host == "linkaged" and port == services["linkaged"]["environment"]["LINKAGE_LISTEN"].split(":")[1]
    assert set(services["linkaged"]["environment"]) <= linkaged_env_names() | linkctl_env_names()
    assert set(services["gateway"]["environment"]) <= gateway_env_names()


def test_compose_runs_with_tls_and_tokens_from_secrets():
    compose = yaml.safe_load((ROOT / "deploy" / "compose.yaml").read_text())
    linkaged, gateway = compose["services"]["linkaged"], compose["services"]["gateway"]
    env = linkaged["environment"]
    assert "LINKAGE_INSECURE" not in env
    for key in ("LINKAGE_TLS_CERT", "LINKAGE_TLS_KEY", "LINKAGE_TOKENS", "LINKCTL_TLS_CA"):
        name = env[key].removeprefix("/run/secrets/")
        assert name in linkaged["secrets"] and name in compose["secrets"], key
    assert gateway["environment"]["LINKAGE_UPSTREAM_CA"].removeprefix("/run/secrets/") in gateway["secrets"]


if __name__ == "__main__":
    raise SystemExit(pytest.main([__file__, "-q"]))
