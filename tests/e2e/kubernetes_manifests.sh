# contrib/kubernetes: the manifests are yamllint-clean, and what they claim
# holds: the serve DaemonSet sees the node (hostPID, /proc, /sys, /dev/kmsg
# mounted read-only under the --root it passes, the NVIDIA runtime class),
# runs unprivileged with only the capabilities it needs, probes paths that
# serve answers, schedules on NVIDIA nodes and tolerates their taints; the
# NPD DaemonSet runs the packaged contrib/npd monitor (--exit-codes npd
# --oneline) with the same view of the node.
source "$(dirname "$0")/common.sh"
DIR="$GT_SOURCE_DIR/contrib/kubernetes"

command -v yamllint >/dev/null || fail "yamllint missing (scripts/install-deps installs it)"
yamllint -s -c "$DIR/.yamllint" "$DIR" >"$TMP/lint" 2>&1 || fail "yamllint: $(cat "$TMP/lint")"
"$PYTHON" -c 'import yaml' 2>/dev/null || fail "python3-yaml missing (scripts/install-deps installs it)"

"$PYTHON" - "$GT_SOURCE_DIR" <<'PY' || fail "manifest checks"
import json, re, sys, yaml
src = sys.argv[1]
errors = []
def check(ok, what):
    if not ok:
        errors.append(what)

def docs(name):
    return [d for d in yaml.safe_load_all(open(f"{src}/contrib/kubernetes/{name}")) if d]

served = set(re.findall(r'server_->Get\("([^"]+)"', open(f"{src}/src/serve/http_server.cc").read()))
check({"/metrics", "/healthz"} <= served, f"serve's routes: {served}")

HOST_MOUNTS = {"/proc": "/host/proc", "/sys": "/host/sys", "/dev/kmsg": "/host/dev/kmsg"}

def pod_checks(name, ds, container, root):
    spec = ds["spec"]["template"]["spec"]
    c = next((c for c in spec["containers"] if c["name"] == container), None)
    check(c is not None, f"{name}: no container {container}")
    if c is None:
        return None
    check(spec.get("hostPID") is True, f"{name}: hostPID is not true")
    check(spec.get("runtimeClassName") == "nvidia", f"{name}: runtimeClassName is not nvidia")
    env = {e["name"]: e.get("value") for e in c.get("env", [])}
    check(env.get("NVIDIA_VISIBLE_DEVICES") == "all", f"{name}: NVIDIA_VISIBLE_DEVICES")
    # No GPU taken from jobs.
    res = c.get("resources", {})
    check("nvidia.com/gpu" not in res.get("limits", {}), f"{name}: requests a GPU")
    check("memory" in res.get("limits", {}) and "cpu" in res.get("limits", {}), f"{name}: no limits")
    # Host paths mounted read-only where --root looks for them.
    vols = {v["name"]: v.get("hostPath", {}).get("path") for v in spec["volumes"]}
    mounts = {m["mountPath"]: m for m in c["volumeMounts"]}
    for host, at in HOST_MOUNTS.items():
        m = mounts.get(at)
        check(m is not None and vols.get(m["name"]) == host, f"{name}: {host} not mounted at {at}")
        check(m is not None and m.get("readOnly") is True, f"{name}: {at} not readOnly")
    for at, m in mounts.items():
        check(m.get("readOnly") is True, f"{name}: {at} is writable")
        check(vols.get(m["name"]) is not None, f"{name}: {at} is not a hostPath")
    check(root == "/host", f"{name}: --root is {root}, the mounts are under /host")
    # Unprivileged, only the capabilities README.md explains.
    sc = c.get("securityContext", {})
    check(sc.get("privileged") is False, f"{name}: privileged")
    check(sc.get("allowPrivilegeEscalation") is False, f"{name}: allowPrivilegeEscalation")
    check(sc.get("readOnlyRootFilesystem") is True, f"{name}: readOnlyRootFilesystem")
    caps = sc.get("capabilities", {})
    check(caps.get("drop") == ["ALL"], f"{name}: capabilities not dropped")
    check(sorted(caps.get("add", [])) == ["DAC_READ_SEARCH", "SYSLOG", "SYS_PTRACE"],
          f"{name}: capabilities {caps.get('add')}")
    # NVIDIA nodes, their taints.
    terms = spec["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]["nodeSelectorTerms"]
    keys = {e["key"] for t in terms for e in t["matchExpressions"]}
    check("nvidia.com/gpu.present" in keys, f"{name}: no affinity to nvidia.com/gpu.present")
    check(any(t.get("key") == "nvidia.com/gpu" for t in spec.get("tolerations", [])),
          f"{name}: no toleration for nvidia.com/gpu")
    return c

# gpu-triage serve.
ds = next(d for d in docs("daemonset.yaml") if d["kind"] == "DaemonSet")
c = ds["spec"]["template"]["spec"]["containers"][0]
args = c["args"]
check(c["command"] == ["/usr/bin/gpu-triage"] and args[0] == "serve", f"serve command: {c['command']} {args}")
root = args[args.index("--root") + 1] if "--root" in args else None
c = pod_checks("daemonset.yaml", ds, "gpu-triage", root)
listen = args[args.index("--listen") + 1]
port = int(listen.rsplit(":", 1)[1])
# The node's own address (issue 47): the kubelet probes and Prometheus
# scrapes the pod's IP, which with hostNetwork is status.hostIP; never
# every address (a public interface of the node would answer too).
check(listen == f"$(HOST_IP):{port}", f"--listen {listen}: not the node's own address $(HOST_IP)")
host_ip = next((e for e in c.get("env", []) if e["name"] == "HOST_IP"), {})
check(host_ip.get("valueFrom", {}).get("fieldRef", {}).get("fieldPath") == "status.hostIP",
      f"HOST_IP is not the downward API's status.hostIP: {host_ip}")
ports = {p["name"]: p["containerPort"] for p in c["ports"]}
for probe in ("readinessProbe", "livenessProbe"):
    p = c.get(probe, {}).get("httpGet", {})
    check(p.get("path") in served, f"{probe} path {p.get('path')} is not a route of serve ({sorted(served)})")
    check(ports.get(p.get("port"), p.get("port")) == port, f"{probe} port {p.get('port')} is not --listen's {port}")
check(c["readinessProbe"]["httpGet"]["path"] == "/healthz", "readiness: /healthz (503 until the first collection)")
# /healthz may wait for a collection up to serve's --scrape-timeout (10 s).
check(c["readinessProbe"]["timeoutSeconds"] > 10, "readiness timeout within serve's 10 s wait")
ann = ds["spec"]["template"]["metadata"]["annotations"]
check(ann.get("prometheus.io/port") == str(port) and ann.get("prometheus.io/path") in served, f"scrape annotations {ann}")

# Node Problem Detector with the packaged monitor.
npd = next(d for d in docs("npd-gpu-triage.yaml") if d["kind"] == "DaemonSet")
env = {e["name"]: e.get("value") for e in npd["spec"]["template"]["spec"]["containers"][0]["env"]}
n = pod_checks("npd-gpu-triage.yaml", npd, "node-problem-detector", env.get("GPU_TRIAGE_ROOT"))
flag = next((a for a in n["command"] if a.startswith("--config.custom-plugin-monitor=")), "")
monitor = flag.split("=", 1)[1] if flag else ""
PREFIX = "/usr/share/gpu-triage/contrib/"
check(monitor.startswith(PREFIX), f"NPD monitor {monitor!r} is not a packaged contrib file")
if monitor.startswith(PREFIX):
    cfg = json.load(open(f"{src}/contrib/{monitor[len(PREFIX):]}"))
    for rule in cfg["rules"]:
        a = " ".join(rule["args"])
        check(rule["path"] == "/usr/bin/gpu-triage", f"NPD rule path {rule['path']}")
        check("--exit-codes npd" in a and "--oneline" in a, f"NPD rule args: {a}")
# The package installs contrib/ where the monitor path says.
check(re.search(r"install\(DIRECTORY contrib/ DESTINATION \$\{CMAKE_INSTALL_DATADIR\}/gpu-triage/contrib",
                open(f"{src}/packaging/package.cmake").read()) is not None, "package.cmake no longer installs contrib/")
dockerfile = open(f"{src}/contrib/kubernetes/Dockerfile").read()
check("/usr/bin/node-problem-detector" in dockerfile and "gpu-triage_" in dockerfile, "Dockerfile: gpu-triage and NPD")

for e in errors:
    print(e, file=sys.stderr)
sys.exit(1 if errors else 0)
PY
echo "kubernetes manifests: lint-clean, mounts, capabilities, probes and the NPD monitor check out"
