//! The Kubernetes example (`examples/kubernetes/`): a StatefulSet of swarm processes, the swarm
//! file as a ConfigMap, a headless Service and a Service per process, and the image recipe.
//!
//! - Every manifest passes an offline schema validator (kubernetes-validate from PyPI, installed
//!   by `tests/kubernetes/install.sh`; it ships the schemas) in strict mode, against the oldest and
//!   the newest Kubernetes claimed; manifests broken on purpose are refused, so the check can fail.
//! - What a schema cannot see is checked here: the pieces name each other correctly, the ports
//!   are reachable only in the cluster and behind the token, each replica logs in its own bots
//!   (the entry point renders the ConfigMap's swarm file, which this crate's own parser reads), the
//!   resources cover the swarm's size, and the image recipe agrees with the manifests.
//!
//! Nothing here binds a socket or talks to a cluster.

use crate::common;

use std::collections::{BTreeSet, HashSet};
use std::net::{IpAddr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

use clawcraft::swarm::{SwarmDefaults, SwarmFile};
use common::{TempDir, repo_root};
use serde_json::{Value, json};

/// Where the manifests, the entry point and the image recipe live.
const DIR: &str = "examples/kubernetes";

/// Kubernetes versions every manifest is validated against: 1.28 is the first whose StatefulSet
/// pods carry the `apps.kubernetes.io/pod-index` label the entry point reads (on older ones it
/// falls back to the pod's name), 1.37 the newest the pinned validator knows.
const VERSIONS: [&str; 2] = ["1.28.0", "1.37.0"];

/// README's figures for an idle bot in a swarm: CPU share of one core, and memory (the upper end
/// of 1–1.5 MB); and what the process costs before its first bot (the single bot's process is
/// ~10.5 MiB once started; 20 MB is the assumption the sizing table states).
const IDLE_BOT_CORES: f64 = 0.002;
const IDLE_BOT_BYTES: f64 = 1.5e6;
const PROCESS_BYTES: f64 = 20e6;

/// The venv's python with kubernetes-validate, installed once per test process (the script is
/// idempotent and takes ~0.5 s when the venv is there).
fn python() -> &'static Path {
    static PY: OnceLock<PathBuf> = OnceLock::new();
    PY.get_or_init(|| {
        let script = repo_root().join("tests/kubernetes/install.sh");
        let out = Command::new("bash")
            .arg(&script)
            .stdin(Stdio::null())
            .stderr(Stdio::inherit())
            .output()
            .unwrap_or_else(|e| panic!("cannot run bash {}: {e}", script.display()));
        assert!(
            out.status.success(),
            "the offline Kubernetes schema validator is not installed: `bash tests/kubernetes/install.sh` \
             failed (it needs python3 with venv and pip, and PyPI the first time; its error is above)"
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        let path = PathBuf::from(stdout.lines().last().unwrap_or_default().trim());
        assert!(path.is_file(), "install.sh printed no python path (got {stdout:?})");
        path
    })
}

/// The manifests: every `.yaml` in [`DIR`], sorted.
fn manifest_files() -> Vec<PathBuf> {
    let dir = repo_root().join(DIR);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("cannot list {}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "yaml" || x == "yml"))
        .collect();
    files.sort();
    files
}

/// The documents of `files` as JSON, through the validator's own YAML loader (PyYAML, safe).
fn documents(files: &[PathBuf]) -> Vec<Value> {
    let script = "import sys, json, yaml\n\
                  docs = [d for f in sys.argv[1:] for d in yaml.safe_load_all(open(f)) if d]\n\
                  print(json.dumps(docs))";
    let out = Command::new(python()).arg("-c").arg(script).args(files).output().expect("run python");
    assert!(out.status.success(), "YAML does not load: {}", String::from_utf8_lossy(&out.stderr));
    serde_json::from_slice::<Vec<Value>>(&out.stdout).expect("JSON from python")
}

/// Runs kubernetes-validate in strict mode (a field the schema does not know is an error) on
/// `files` against [`VERSIONS`]. `Ok(n)`: it exited 0 and every line is one of `n` passes.
/// Anything else is an `Err` with its output — including a WARN, which is how it reports a
/// resource it has no schema for (an unknown kind or apiVersion) while still exiting 0.
fn validate(files: &[PathBuf]) -> Result<usize, String> {
    let mut cmd = Command::new(python());
    cmd.args(["-m", "kubernetes_validate", "--strict"]);
    for v in VERSIONS {
        cmd.args(["-k", v]);
    }
    let out = cmd.args(files).stdin(Stdio::null()).output().expect("run kubernetes-validate");
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    let pass = |l: &str| l.starts_with("INFO ") && l.contains(" passed for resource ");
    let passed = text.lines().filter(|l| pass(l)).count();
    let other = text.lines().any(|l| !l.trim().is_empty() && !pass(l));
    if out.status.success() && !other && passed > 0 {
        Ok(passed)
    } else {
        Err(format!("exit {:?}\n{text}", out.status.code()))
    }
}

/// The resources of the example, by kind.
struct Fleet {
    statefulset: Value,
    services: Vec<Value>,
    configmaps: Vec<Value>,
}

fn fleet() -> Fleet {
    let docs = documents(&manifest_files());
    let of = |kind: &str| docs.iter().filter(|d| d["kind"] == kind).cloned().collect::<Vec<_>>();
    let mut sets = of("StatefulSet");
    assert_eq!(sets.len(), 1, "one StatefulSet");
    Fleet { statefulset: sets.remove(0), services: of("Service"), configmaps: of("ConfigMap") }
}

impl Fleet {
    fn pod(&self) -> &Value {
        &self.statefulset["spec"]["template"]["spec"]
    }

    fn container(&self) -> &Value {
        let containers = self.pod()["containers"].as_array().expect("containers");
        assert_eq!(containers.len(), 1, "one container per pod");
        &containers[0]
    }

    fn replicas(&self) -> u64 {
        self.statefulset["spec"]["replicas"].as_u64().expect("spec.replicas")
    }

    /// The container's variable `name`: its entry in `env`.
    fn env(&self, name: &str) -> &Value {
        self.container()["env"]
            .as_array()
            .expect("env")
            .iter()
            .find(|e| e["name"] == name)
            .unwrap_or_else(|| panic!("the container sets no {name}"))
    }

    /// The plain value of the container's variable `name`.
    fn env_value(&self, name: &str) -> &str {
        self.env(name)["value"].as_str().unwrap_or_else(|| panic!("{name} has no plain value"))
    }

    /// The number of the container port named `name`.
    fn port(&self, name: &str) -> u64 {
        let ports = self.container()["ports"].as_array().expect("ports");
        let port = ports.iter().find(|p| p["name"] == name).unwrap_or_else(|| panic!("no container port {name}"));
        port["containerPort"].as_u64().expect("containerPort")
    }

    /// Where the pod volume `volume` is mounted in the container.
    fn mount(&self, volume: &str) -> &str {
        let mounts = self.container()["volumeMounts"].as_array().expect("volumeMounts");
        let m = mounts.iter().find(|m| m["name"] == volume).unwrap_or_else(|| panic!("{volume} is not mounted"));
        m["mountPath"].as_str().expect("mountPath")
    }

    /// The swarm file of the ConfigMap, as the entry point reads it (`{ordinal}` unreplaced),
    /// found through CLAWCRAFT_SWARM_TEMPLATE: a mounted ConfigMap volume and one of its keys.
    fn swarm_template(&self) -> String {
        let path = self.env_value("CLAWCRAFT_SWARM_TEMPLATE");
        let volumes = self.pod()["volumes"].as_array().expect("volumes");
        for v in volumes.iter().filter(|v| v["configMap"].is_object()) {
            let name = v["name"].as_str().expect("volume name");
            let Some(key) = path.strip_prefix(self.mount(name)).and_then(|k| k.strip_prefix('/')) else { continue };
            let cm_name = &v["configMap"]["name"];
            let cm = self
                .configmaps
                .iter()
                .find(|c| &c["metadata"]["name"] == cm_name)
                .unwrap_or_else(|| panic!("no ConfigMap {cm_name} among the manifests"));
            return cm["data"][key].as_str().unwrap_or_else(|| panic!("ConfigMap {cm_name} has no key {key}")).into();
        }
        panic!("CLAWCRAFT_SWARM_TEMPLATE={path} is in no mounted ConfigMap");
    }
}

#[test]
fn every_manifest_passes_the_schema_validator() {
    let files = manifest_files();
    let names: BTreeSet<String> =
        files.iter().map(|f| f.file_name().unwrap_or_default().to_string_lossy().into_owned()).collect();
    for expected in ["statefulset.yaml", "services.yaml", "swarm-configmap.yaml"] {
        assert!(names.contains(expected), "{DIR}/{expected} is missing (have {names:?})");
    }
    let docs = documents(&files);
    let passed = validate(&files).unwrap_or_else(|e| panic!("the manifests do not validate:\n{e}"));
    // Every resource of every file against every version: none skipped for want of a schema.
    assert_eq!(passed, docs.len() * VERSIONS.len(), "resources validated ({} documents)", docs.len());
}

#[test]
fn a_broken_manifest_is_refused() {
    let fleet = fleet();
    let tmp = TempDir::new("k8s-broken");
    let write = |name: &str, doc: &Value| {
        let path = tmp.path().join(name);
        // JSON is YAML: the validator reads it as it reads the manifests.
        std::fs::write(&path, serde_json::to_string_pretty(doc).expect("json")).expect("write");
        vec![path]
    };
    // The StatefulSet as it is, from the same kind of file: the refusals below are the mutations'.
    assert_eq!(validate(&write("control.yaml", &fleet.statefulset)), Ok(VERSIONS.len()));

    type Break = fn(&mut Value);
    let cases: [(&str, Break, &str); 4] = [
        ("replicas as a word", |s| s["spec"]["replicas"] = json!("ten"), "spec.replicas"),
        (
            "a misspelt field (refused in strict mode only)",
            |s| s["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["tcpSocket"]["prot"] = json!(4099),
            "'prot' was unexpected",
        ),
        (
            "no selector",
            |s| {
                s["spec"].as_object_mut().expect("spec").remove("selector");
            },
            "'selector' is a required property",
        ),
        ("an apiVersion without a schema", |s| s["apiVersion"] = json!("apps/v1beta9"), "Couldn't find schema"),
    ];
    for (i, (what, break_it, expected)) in cases.into_iter().enumerate() {
        let mut doc = fleet.statefulset.clone();
        break_it(&mut doc);
        match validate(&write(&format!("broken-{i}.yaml"), &doc)) {
            Ok(n) => panic!("{what}: accepted ({n} passes)"),
            Err(out) => assert!(out.contains(expected), "{what}: refused, but without {expected:?}:\n{out}"),
        }
    }
}

#[test]
fn the_pieces_name_each_other() {
    let fleet = fleet();
    let sts = &fleet.statefulset;
    let sts_name = sts["metadata"]["name"].as_str().expect("name");
    let pod_labels = &sts["spec"]["template"]["metadata"]["labels"];
    let selects_pods = |selector: &Value| {
        let sel = selector.as_object().expect("selector");
        !sel.is_empty() && sel.iter().all(|(k, v)| &pod_labels[k] == v)
    };
    assert!(selects_pods(&sts["spec"]["selector"]["matchLabels"]), "the StatefulSet's selector matches its pods");

    // The headless Service the StatefulSet names, selecting its pods.
    let headless = fleet
        .services
        .iter()
        .find(|s| s["metadata"]["name"] == sts["spec"]["serviceName"])
        .expect("a Service named by spec.serviceName");
    assert_eq!(headless["spec"]["clusterIP"], "None", "the StatefulSet's Service is headless");
    assert!(selects_pods(&headless["spec"]["selector"]), "the headless Service selects the pods");

    // One Service per replica, selecting that pod by name, and no other.
    let per_pod: BTreeSet<String> = fleet
        .services
        .iter()
        .filter_map(|s| s["spec"]["selector"]["statefulset.kubernetes.io/pod-name"].as_str().map(String::from))
        .collect();
    let pods: BTreeSet<String> = (0..fleet.replicas()).map(|i| format!("{sts_name}-{i}")).collect();
    assert_eq!(per_pod, pods, "a Service per replica");
    assert_eq!(fleet.services.len(), pods.len() + 1, "the headless Service and one per replica");

    // Every Service stays inside the cluster and exposes the command and MCP ports by name.
    let ports = [("tcp", fleet.port("tcp")), ("mcp", fleet.port("mcp"))];
    for s in &fleet.services {
        let name = &s["metadata"]["name"];
        let kind = s["spec"]["type"].as_str().unwrap_or("ClusterIP");
        assert_eq!(kind, "ClusterIP", "Service {name}: reachable inside the cluster only");
        assert!(s["spec"]["externalIPs"].is_null(), "Service {name}: no external IPs");
        for (port, number) in ports {
            let p = s["spec"]["ports"].as_array().and_then(|ps| ps.iter().find(|p| p["targetPort"] == port));
            let p = p.unwrap_or_else(|| panic!("Service {name} does not expose container port {port}"));
            assert_eq!(p["port"], number, "Service {name}: port {port} keeps its number");
        }
    }

    // The volume claim template is mounted; everything the process writes goes to it.
    let claims = sts["spec"]["volumeClaimTemplates"].as_array().expect("volumeClaimTemplates");
    assert_eq!(claims.len(), 1);
    let data = fleet.mount(claims[0]["metadata"]["name"].as_str().expect("claim name"));
    for var in ["CLAWCRAFT_EVENTS", "CLAWCRAFT_SKILLS_DIR", "CLAWCRAFT_AUTH_DIR"] {
        let path = fleet.env_value(var);
        assert!(path.starts_with(&format!("{data}/")), "{var}={path} is on the volume at {data}");
    }
    // The swarm template is a key of a ConfigMap among the manifests (swarm_template panics
    // otherwise), and the ordinal comes from the pod itself.
    assert!(fleet.swarm_template().contains("{ordinal}"), "the swarm file makes names per replica");
    assert_eq!(
        fleet.env("POD_INDEX")["valueFrom"]["fieldRef"]["fieldPath"],
        "metadata.labels['apps.kubernetes.io/pod-index']"
    );
    assert_eq!(fleet.env("POD_NAME")["valueFrom"]["fieldRef"]["fieldPath"], "metadata.name");
}

#[test]
fn the_ports_are_guarded() {
    let fleet = fleet();
    let pod = fleet.pod();
    // Service links would put CLAWCRAFT_PORT=tcp://…:4099 (from a Service named `clawcraft`)
    // into the environment: the binary's own TCP port variable.
    assert_eq!(pod["enableServiceLinks"], false, "no Service environment variables");
    assert_eq!(pod["automountServiceAccountToken"], false, "no API token in a pod that needs none");
    assert_eq!(pod["securityContext"]["runAsNonRoot"], true);
    assert!(pod["securityContext"]["runAsUser"].as_u64().is_some_and(|u| u > 0), "a non-root user");
    let c = fleet.container();
    assert_eq!(c["securityContext"]["allowPrivilegeEscalation"], false);
    assert_eq!(c["securityContext"]["readOnlyRootFilesystem"], true);

    // TCP and MCP listen beyond loopback (the Services reach them), so the binary requires the
    // token: it comes from a Secret, not optional (the pod does not start without it).
    let bind: IpAddr = fleet.env_value("CLAWCRAFT_BIND").parse().expect("CLAWCRAFT_BIND is an address");
    let mcp: SocketAddr = fleet.env_value("CLAWCRAFT_MCP_HTTP").parse().expect("CLAWCRAFT_MCP_HTTP is ADDR:PORT");
    assert!(!bind.is_loopback() && !mcp.ip().is_loopback(), "served to the cluster");
    let token = &fleet.env("CLAWCRAFT_TOKEN")["valueFrom"]["secretKeyRef"];
    assert!(token["name"].is_string() && token["key"].is_string(), "CLAWCRAFT_TOKEN from a Secret");
    assert_ne!(token["optional"], true, "the Secret is required");
    assert!(fleet.env("CLAWCRAFT_TOKEN")["value"].is_null(), "no token written in the manifest");

    // The ports the binary listens on are the container ports the Services and the probe use.
    assert_eq!(fleet.env_value("CLAWCRAFT_PORT").parse::<u64>().ok(), Some(fleet.port("tcp")));
    assert_eq!(u64::from(mcp.port()), fleet.port("mcp"));
    for probe in ["livenessProbe", "readinessProbe"] {
        assert_eq!(c[probe]["tcpSocket"]["port"], "tcp", "{probe}: TCP on the command port");
    }
    assert_eq!(fleet.env_value("CLAWCRAFT_NO_STDIN"), "true");
}

/// `sh entrypoint.sh ARGS` with `env` (and nothing else but a PATH), the `clawcraft` it starts
/// replaced by a stub that prints CLAWCRAFT_SWARM on stdout and its arguments on stderr.
fn entrypoint(stub: &Path, env: &[(&str, &str)], args: &[&str]) -> Output {
    let script = repo_root().join(DIR).join("entrypoint.sh");
    Command::new("sh")
        .arg(script)
        .args(args)
        .env_clear()
        .env("PATH", format!("{}:/usr/bin:/bin", stub.display()))
        .envs(env.iter().copied())
        .stdin(Stdio::null())
        .output()
        .expect("run sh")
}

fn stub_dir(tmp: &TempDir) -> PathBuf {
    use std::os::unix::fs::PermissionsExt;
    let dir = tmp.path().join("bin");
    std::fs::create_dir_all(&dir).expect("mkdir");
    let stub = dir.join("clawcraft");
    std::fs::write(&stub, "#!/bin/sh\nprintf '%s' \"$CLAWCRAFT_SWARM\"\nprintf '%s' \"$*\" >&2\n").expect("stub");
    std::fs::set_permissions(&stub, std::fs::Permissions::from_mode(0o755)).expect("chmod");
    dir
}

/// The bot names of a swarm file, read by this crate's own parser and checked as the binary
/// checks them (valid Bedrock names, unique, at most MAX_BOTS).
fn bot_names(swarm: &str) -> Vec<String> {
    let defaults = SwarmDefaults {
        host: "127.0.0.1".into(),
        port: 19132,
        forced_version: None,
        reconnect: false,
        online: false,
        auth: None,
    };
    let file = SwarmFile::load(swarm).unwrap_or_else(|e| panic!("{e}\n{swarm}"));
    let specs = file.specs(&defaults).unwrap_or_else(|e| panic!("{e}\n{swarm}"));
    specs.into_iter().map(|s| s.username).collect()
}

#[test]
fn every_replica_logs_in_its_own_bots() {
    let fleet = fleet();
    // The pod runs the image's entry point (a `command` would bypass it: one set of names for all).
    assert!(fleet.container()["command"].is_null(), "the container keeps the image's entry point");
    let tmp = TempDir::new("k8s-entrypoint");
    let stub = stub_dir(&tmp);
    let template = tmp.path().join("swarm.json");
    std::fs::write(&template, fleet.swarm_template()).expect("write template");
    let template = template.to_str().expect("utf-8 path");

    let render = |env: &[(&str, &str)]| {
        let out = entrypoint(&stub, &[&[("CLAWCRAFT_SWARM_TEMPLATE", template)], env].concat(), &["--keep-running"]);
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "entry point with {env:?} failed: {stderr}");
        assert_eq!(stderr, "--keep-running", "the arguments reach the binary");
        String::from_utf8(out.stdout).expect("utf-8")
    };

    let mut all = HashSet::new();
    let mut per_replica = None;
    for i in 0..fleet.replicas() {
        let names = bot_names(&render(&[("POD_INDEX", &i.to_string())]));
        assert_eq!(*per_replica.get_or_insert(names.len()), names.len(), "every replica runs the same swarm");
        for n in names {
            assert!(all.insert(n.to_lowercase()), "replica {i}: {n} is also another replica's bot");
        }
    }
    assert_eq!(all.len() as u64, fleet.replicas() * per_replica.unwrap_or(0) as u64);
    assert!(all.len() >= 1_000, "the example is the README's fleet of 1 000 bots (got {})", all.len());

    // A cluster without the pod-index label: the ordinal is the end of the pod's name.
    assert_eq!(render(&[("POD_INDEX", ""), ("POD_NAME", "clawcraft-7")]), render(&[("POD_INDEX", "7")]));
    assert_eq!(render(&[("HOSTNAME", "clawcraft-7")]), render(&[("POD_INDEX", "7")]));

    // No ordinal, or one that is not a number: refused before the binary starts.
    for env in [[("POD_NAME", "clawcraft")], [("POD_NAME", "clawcraft-")], [("POD_INDEX", "1/;s/x/y")]] {
        let out = entrypoint(&stub, &[&[("CLAWCRAFT_SWARM_TEMPLATE", template)], &env[..]].concat(), &[]);
        assert_eq!(out.status.code(), Some(2), "{env:?}");
        assert!(out.stdout.is_empty(), "{env:?}: the binary did not start");
        assert!(String::from_utf8_lossy(&out.stderr).contains("ordinal"), "{env:?}: says why");
    }
    // Without a template the binary runs as configured: CLAWCRAFT_SWARM passes through.
    let out = entrypoint(&stub, &[("CLAWCRAFT_SWARM", "{\"count\":2}"), ("POD_INDEX", "3")], &[]);
    assert!(out.status.success());
    assert_eq!(String::from_utf8_lossy(&out.stdout), "{\"count\":2}");
}

/// A Kubernetes quantity in base units: CPU in cores (`250m`, `1`), memory in bytes (`192Mi`).
fn quantity(q: &Value) -> f64 {
    let q = q.as_str().map(String::from).unwrap_or_else(|| q.to_string());
    let units = [("m", 1e-3), ("Ki", 1024.0), ("Mi", 1048576.0), ("Gi", 1073741824.0), ("M", 1e6), ("G", 1e9)];
    let (number, scale) = units
        .iter()
        .find_map(|(suffix, scale)| q.strip_suffix(suffix).map(|n| (n, *scale)))
        .unwrap_or((q.as_str(), 1.0));
    number.parse::<f64>().unwrap_or_else(|_| panic!("not a quantity: {q}")) * scale
}

#[test]
fn the_resources_cover_the_swarm() {
    let fleet = fleet();
    let swarm = fleet.swarm_template().replace("{ordinal}", "0");
    let bots = bot_names(&swarm).len() as f64;
    let r = &fleet.container()["resources"];
    let (cpu, mem) = (quantity(&r["requests"]["cpu"]), quantity(&r["requests"]["memory"]));
    let (cpu_max, mem_max) = (quantity(&r["limits"]["cpu"]), quantity(&r["limits"]["memory"]));
    assert!(cpu >= bots * IDLE_BOT_CORES, "CPU request {cpu} for {bots} idle bots");
    assert!(mem >= PROCESS_BYTES + bots * IDLE_BOT_BYTES, "memory request {mem} B for {bots} idle bots");
    assert!(cpu_max >= cpu && mem_max >= mem, "limits at or above the requests");
    // Every bot's tick runs on the one game thread: a limit under a core would throttle it.
    assert!(cpu_max >= 1.0, "CPU limit {cpu_max} below one core");
    let storage =
        quantity(&fleet.statefulset["spec"]["volumeClaimTemplates"][0]["spec"]["resources"]["requests"]["storage"]);
    assert!(storage >= 64.0 * 1048576.0, "the volume holds the rotated events log and the skills ({storage} B)");
}

#[test]
fn the_image_recipe_matches_the_manifests() {
    let fleet = fleet();
    let path = repo_root().join(DIR).join("Containerfile");
    let text = std::fs::read_to_string(&path).expect("examples/kubernetes/Containerfile");
    // Instructions, with comments and continuation lines joined.
    let joined = text.lines().filter(|l| !l.trim_start().starts_with('#')).collect::<Vec<_>>().join("\n");
    let joined = joined.replace("\\\n", " ");
    let instr = |word: &str| -> Vec<&str> {
        joined.lines().filter_map(|l| l.trim().strip_prefix(word).and_then(|r| r.strip_prefix(' '))).collect()
    };

    // Multi-stage: the Rust image builds, a slim image runs; the builder is new enough.
    let from = instr("FROM");
    assert_eq!(from.len(), 2, "two stages: {from:?}");
    let rust = from[0].split(':').nth(1).and_then(|tag| tag.split('-').next()).expect("rust:<version>-…");
    let manifest = std::fs::read_to_string(repo_root().join("Cargo.toml")).expect("Cargo.toml");
    let needed = manifest.lines().find_map(|l| l.strip_prefix("rust-version = ")).expect("rust-version");
    let version =
        |v: &str| v.trim_matches('"').split('.').map(|n| n.parse::<u32>().expect("number")).collect::<Vec<_>>();
    assert!(version(rust) >= version(needed), "builder rust {rust} older than rust-version {needed}");

    // The entry point the image runs is the one of this directory.
    let entry: Vec<String> = serde_json::from_str(instr("ENTRYPOINT")[0]).expect("ENTRYPOINT in exec form");
    let copied = instr("COPY")
        .into_iter()
        .find_map(|c| c.strip_prefix("examples/kubernetes/entrypoint.sh "))
        .expect("COPY examples/kubernetes/entrypoint.sh");
    assert_eq!(entry, [copied.trim()], "ENTRYPOINT runs the copied entry point");

    // The user the pod runs as, and the data directory the volume is mounted on.
    let user = instr("USER")[0];
    let uid = fleet.pod()["securityContext"]["runAsUser"].as_u64().expect("runAsUser");
    assert_eq!(user.split(':').next(), Some(uid.to_string().as_str()), "USER is the pod's runAsUser");
    let data = fleet.mount("data");
    assert_eq!(instr("WORKDIR").last().copied(), Some(data), "the working directory is the volume");
    assert!(joined.contains(&format!("-o {uid} -g {uid}")) && joined.contains(data), "the data dir is the user's");

    // No stdin in a container; the events log and skills on the volume; the ports exposed.
    let env = instr("ENV").join(" ");
    for setting in [
        "CLAWCRAFT_NO_STDIN=true".to_owned(),
        format!("CLAWCRAFT_EVENTS={}", fleet.env_value("CLAWCRAFT_EVENTS")),
        format!("CLAWCRAFT_SKILLS_DIR={}", fleet.env_value("CLAWCRAFT_SKILLS_DIR")),
    ] {
        assert!(env.split_whitespace().any(|w| w == setting), "ENV {setting}");
    }
    let exposed: Vec<u64> = instr("EXPOSE").join(" ").split_whitespace().filter_map(|p| p.parse().ok()).collect();
    assert!(exposed.contains(&fleet.port("tcp")) && exposed.contains(&fleet.port("mcp")), "EXPOSE {exposed:?}");
}
