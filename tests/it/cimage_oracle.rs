//! `explain` against containers/image 5.34 itself: a Go program
//! (tests/oracle/cimage) built at run time in the Debian 13 root
//! (scripts/debian13-root.sh) answers, with the library's own
//! `sysregistriesv2`, `shortnames` and `signature` packages, how each
//! generated image would be resolved and pulled on a node with generated
//! registries.conf files, drop-ins, short-name-aliases.conf and
//! policy.json; the tool's
//! `explain -o json` over the same files must say the same.
//!
//! The cases come from a seed, new each run and printed;
//! `MIRRORPOLICY_ORACLE_SEED=N` replays one. A configuration the tool calls
//! undetermined (two keys of one table that differ only in case, which
//! BurntSushi/toml assigns in map order) is counted, not compared, and must
//! be called so. Run it with
//! `cargo test --test it cimage_oracle:: -- --ignored --nocapture`.

use std::collections::BTreeSet;
use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Write as _};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Instant;

use serde_json::{json, Value};

/// Configurations generated per run; each is explained in two short-name
/// modes with [`IMAGES_PER_CONFIG`] images.
const CONFIGS: usize = 560;
const IMAGES_PER_CONFIG: usize = 24;
/// The least number of image answers compared for the run to count.
const MIN_COMPARED: usize = 20_000;
/// The CRI-O release the files are read for when the short-name mode is
/// given: TOML 1.0, as containers/image 5.34 reads them.
const CRIO: &str = "1.33";

/// A small deterministic generator (splitmix64): the cases of a seed are
/// the same on every machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// True `n` times in a thousand.
    fn per_mille(&mut self, n: u64) -> bool {
        self.next() % 1000 < n
    }

    /// True `percent` times in a hundred.
    fn chance(&mut self, percent: u64) -> bool {
        self.next() % 100 < percent
    }

    fn pick<'a, T: ?Sized>(&mut self, items: &[&'a T]) -> &'a T {
        items[self.below(items.len())]
    }

    fn hex(&mut self, n: usize) -> String {
        (0..n)
            .map(|_| char::from(b"0123456789abcdef"[self.below(16)]))
            .collect()
    }
}

const HOSTS: &[&str] = &[
    "quay.io",
    "registry.example.com",
    "a.example.com",
    "b.a.example.com",
    "example.com",
    "localhost",
    "localhost:5000",
    "10.0.0.1",
    "10.0.0.1:5000",
    "docker.io",
    "registry-1.docker.io",
    "mirror.corp:5000",
    "m.example.com",
    "m.example.com:8443",
    "[fd00::1]:5000",
];
const PATHS: &[&str] = &[
    "",
    "/ns",
    "/ns/sub",
    "/library",
    "/openshift/release",
    "/ns/app",
];
const REPOS: &[&str] = &["app", "busybox", "app-1", "release", "sub/app"];
const TAGS: &[&str] = &["1", "latest", "v1.2.3", "A_b-c.d"];
const WILDCARDS: &[&str] = &["*.example.com", "*.a.example.com", "*.io"];
const SHORT: &[&str] = &[
    "foo",
    "bar/baz",
    "app",
    "busybox",
    "ns/app",
    "library/busybox",
];
const SEARCH: &[&str] = &[
    "quay.io",
    "docker.io",
    "registry.example.com",
    "localhost:5000",
    "10.0.0.1:5000",
];
/// Where the generated policies' keys "are": never a file, so that a
/// signedBy requirement's error names it.
const KEY_DIR: &str = "/nonexistent-mirrorpolicy-keys";

fn host_path(rng: &mut Rng) -> String {
    format!("{}{}", rng.pick(HOSTS), rng.pick(PATHS))
}

/// A `key` spelled as BurntSushi/toml still matches it (case-insensitively),
/// now and then.
fn spelled(rng: &mut Rng, key: &str) -> String {
    if rng.chance(8) {
        let mut k = key.to_string();
        if rng.chance(50) {
            k = k.to_uppercase();
        } else {
            k[..1].make_ascii_uppercase();
        }
        k
    } else {
        key.to_string()
    }
}

fn quoted(s: &str) -> String {
    serde_json::to_string(s).expect("a string encodes")
}

/// What a generated configuration is known to hold.
#[derive(Default)]
struct Planted {
    /// Two keys of one table that differ only in case, with different
    /// values: the node reads either.
    case_conflict: bool,
    /// The prefixes of its entries (for references that hit them).
    prefixes: Vec<String>,
    /// Those of entries with mirrors.
    mirrored: Vec<String>,
}

/// One `[[registry]]` table with its mirrors.
fn registry(rng: &mut Rng, planted: &mut Planted, prefix_hint: Option<&str>) -> String {
    let mut t = String::from("[[registry]]\n");
    let wildcard = rng.chance(12);
    let prefix = match prefix_hint {
        Some(p) => p.to_string(),
        None if wildcard => rng.pick(WILDCARDS).to_string(),
        None => {
            let mut p = host_path(rng);
            if rng.chance(5) {
                p.push('/');
            }
            if rng.per_mille(5) {
                p = format!("http://{p}");
            }
            if rng.per_mille(5) {
                p = "*.example.com/ns".to_string();
            }
            p
        }
    };
    planted
        .prefixes
        .push(prefix.trim_end_matches('/').to_string());
    let location = if prefix.starts_with("*.") && rng.chance(60) {
        None
    } else if rng.chance(60) {
        Some(prefix.clone())
    } else {
        let mut l = host_path(rng);
        if rng.chance(8) {
            l.push('/');
        }
        Some(l)
    };
    let mut location = location;
    match (rng.below(100), &location) {
        // Location alone: the prefix is the location.
        (0..=9, Some(l)) if !prefix.starts_with("*.") => {
            planted.prefixes.pop();
            planted.prefixes.push(l.trim_end_matches('/').to_string());
        }
        (10, _) => {
            // A prefix alone, refused unless a wildcard.
            writeln!(t, "{} = {}", spelled(rng, "prefix"), quoted(&prefix)).unwrap();
            location = None;
        }
        _ => {
            writeln!(t, "{} = {}", spelled(rng, "prefix"), quoted(&prefix)).unwrap();
        }
    }
    if let Some(l) = &location {
        writeln!(t, "{} = {}", spelled(rng, "location"), quoted(l)).unwrap();
        if rng.chance(1) {
            let other = host_path(rng);
            writeln!(t, "Location = {}", quoted(&other)).unwrap();
            planted.case_conflict |= &other != l;
        }
    }
    if rng.chance(15) {
        writeln!(t, "{} = true", spelled(rng, "blocked")).unwrap();
    }
    if rng.chance(15) {
        writeln!(t, "{} = true", spelled(rng, "insecure")).unwrap();
    }
    let by_digest = rng.chance(15);
    if by_digest {
        writeln!(t, "{} = true", spelled(rng, "mirror-by-digest-only")).unwrap();
    }
    // The mirror tables as written, by the spelling of their key: two
    // spellings with different tables are decoded over each other.
    let mut tables: [(&str, String); 2] = [("mirror", String::new()), ("Mirror", String::new())];
    for _ in 0..rng.below(4) {
        let spelling = usize::from(rng.chance(1));
        let mut m = format!("[[registry.{}]]\n", tables[spelling].0);
        let mut l = host_path(rng);
        match rng.below(400) {
            0..=39 => l.push('/'),
            40 => l = "/".to_string(),
            41 => l = format!("https://{l}"),
            42 => l.clear(),
            _ => {}
        }
        writeln!(m, "{} = {}", spelled(rng, "location"), quoted(&l)).unwrap();
        if rng.chance(1) {
            let other = host_path(rng);
            writeln!(m, "LOCATION = {}", quoted(&other)).unwrap();
            planted.case_conflict |= other != l;
        }
        if rng.chance(20) {
            writeln!(m, "{} = true", spelled(rng, "insecure")).unwrap();
        }
        if !by_digest || rng.chance(5) {
            let pull = match rng.below(100) {
                0..=54 => None,
                55..=69 => Some("all"),
                70..=84 => Some("digest-only"),
                85..=98 => Some("tag-only"),
                _ if rng.chance(50) => Some("bogus"),
                _ => Some("tag-only"),
            };
            if let Some(p) = pull {
                writeln!(m, "{} = {}", spelled(rng, "pull-from-mirror"), quoted(p)).unwrap();
            }
        }
        t += &m;
        tables[spelling].1 += &m[m.find('\n').unwrap_or(0)..];
    }
    planted.case_conflict |=
        !tables[1].1.is_empty() && !tables[0].1.is_empty() && tables[0].1 != tables[1].1;
    if !tables[0].1.is_empty() || !tables[1].1.is_empty() {
        let last = planted.prefixes.last().cloned().unwrap_or_default();
        planted.mirrored.push(last);
    }
    t
}

/// The top-level keys of a file (they must come before its tables).
fn top_level(rng: &mut Rng, search_percent: u64) -> String {
    let mut t = String::new();
    if rng.chance(search_percent) {
        let mut list: Vec<String> = (0..rng.below(4))
            .map(|_| rng.pick(SEARCH).to_string())
            .collect();
        if rng.chance(2) {
            list.push(
                rng.pick(&["quay.io/ns", "http://x.io", "Bad.io"])
                    .to_string(),
            );
        }
        let list: Vec<String> = list.iter().map(|s| quoted(s)).collect();
        writeln!(
            t,
            "{} = [{}]",
            spelled(rng, "unqualified-search-registries"),
            list.join(", ")
        )
        .unwrap();
    }
    if rng.chance(20) {
        let mode = if rng.chance(5) {
            "bogus"
        } else {
            rng.pick(&["enforcing", "permissive", "disabled"])
        };
        writeln!(t, "short-name-mode = {}", quoted(mode)).unwrap();
    }
    t
}

fn aliases(rng: &mut Rng, tombstones: bool) -> String {
    let mut t = String::from("[aliases]\n");
    let mut names = BTreeSet::new();
    for _ in 0..1 + rng.below(3) {
        names.insert(rng.pick(SHORT));
    }
    for name in names {
        let value = if tombstones && rng.chance(30) {
            String::new()
        } else {
            // Not the IPv6 host, which containers/image 5.34's reference
            // grammar refuses (the whole file with it).
            let host = rng.pick(&HOSTS[..HOSTS.len() - 1]);
            let tag = if rng.chance(1) { ":1" } else { "" };
            format!("{host}{}/{}{tag}", rng.pick(PATHS), rng.pick(REPOS))
        };
        writeln!(t, "{} = {}", quoted(name), quoted(&value)).unwrap();
    }
    t
}

/// A version 1 file (`[registries.search]` ...).
fn v1(rng: &mut Rng) -> String {
    let mut t = String::new();
    for table in ["search", "insecure", "block"] {
        if rng.chance(60) {
            let list: Vec<String> = (0..1 + rng.below(2))
                .map(|_| quoted(rng.pick(SEARCH)))
                .collect();
            writeln!(
                t,
                "[registries.{table}]\nregistries = [{}]",
                list.join(", ")
            )
            .unwrap();
        }
    }
    t
}

/// A reference to explain: mostly under the configuration's prefixes.
fn image(rng: &mut Rng, planted: &Planted) -> String {
    let name = match rng.below(100) {
        0..=59 if !planted.prefixes.is_empty() => {
            let from = if planted.mirrored.is_empty() || rng.chance(40) {
                &planted.prefixes
            } else {
                &planted.mirrored
            };
            let p = &from[rng.below(from.len())];
            if let Some(domain) = p.strip_prefix("*.") {
                let sub = rng.pick(&["x", "b.a", "a", "registry"]);
                format!("{sub}.{domain}/{}", rng.pick(REPOS))
            } else if rng.chance(15) && p.contains('/') {
                p.clone()
            } else {
                format!("{p}/{}", rng.pick(REPOS))
            }
        }
        0..=69 => format!("{}/{}", host_path(rng), rng.pick(REPOS)),
        70..=86 => rng.pick(SHORT).to_string(),
        87..=95 => rng
            .pick(&[
                "docker.io/busybox",
                "docker.io/library/busybox",
                "index.docker.io/ns/app",
                "registry-1.docker.io/library/app",
                "docker.io/ns/app",
            ])
            .to_string(),
        _ => rng
            .pick(&[
                "UPPER/x",
                "quay.io//x",
                "quay.io/x:",
                "http://quay.io/x",
                "quay.io/X",
            ])
            .to_string(),
    };
    let digest = |rng: &mut Rng| {
        if rng.chance(70) {
            format!("@sha256:{}", rng.hex(64))
        } else if rng.chance(95) {
            format!("@sha512:{}", rng.hex(128))
        } else {
            format!("@sha256:{}", rng.hex(12))
        }
    };
    match rng.below(100) {
        0..=44 => format!("{name}:{}", rng.pick(TAGS)),
        45..=64 => name,
        65..=84 => format!("{name}{}", digest(rng)),
        _ => format!("{name}:{}{}", rng.pick(TAGS), digest(rng)),
    }
}

/// A policy.json whose every requirement list is told apart by what it
/// answers: a signedBy requirement by its key file.
fn policy(rng: &mut Rng, planted: &Planted) -> String {
    let mut key = 0;
    let mut requirement = |rng: &mut Rng| {
        key += 1;
        match rng.below(100) {
            0..=74 => json!([{"type": "signedBy", "keyType": "GPGKeys",
                "keyPath": format!("{KEY_DIR}/{key}.gpg")}]),
            75..=86 => json!([{"type": "reject"}]),
            _ => json!([{"type": "insecureAcceptAnything"}]),
        }
    };
    let mut scopes = serde_json::Map::new();
    for _ in 0..rng.below(7) {
        let scope = match rng.below(100) {
            0..=29 if !planted.prefixes.is_empty() => {
                planted.prefixes[rng.below(planted.prefixes.len())].clone()
            }
            0..=44 => host_path(rng),
            45..=54 => rng.pick(HOSTS).to_string(),
            55..=64 => format!("{}/{}", host_path(rng), rng.pick(REPOS)),
            65..=69 => format!("{}/{}:{}", host_path(rng), rng.pick(REPOS), rng.pick(TAGS)),
            70..=79 => rng.pick(WILDCARDS).to_string(),
            80..=89 => rng
                .pick(&[
                    "docker.io",
                    "docker.io/library",
                    "docker.io/library/busybox",
                    "",
                ])
                .to_string(),
            90..=97 => format!("{}/{}", rng.pick(SEARCH), rng.pick(SHORT)),
            _ if rng.chance(70) => rng.pick(HOSTS).to_string(),
            _ => rng
                .pick(&["quay.io/ns/", "*.example.com/ns", "Quay.io"])
                .to_string(),
        };
        scopes.insert(scope, requirement(rng));
    }
    let default = if rng.chance(85) {
        json!([{"type": "signedBy", "keyType": "GPGKeys", "keyPath": format!("{KEY_DIR}/0.gpg")}])
    } else {
        json!([{"type": "insecureAcceptAnything"}])
    };
    serde_json::to_string_pretty(&json!({"default": default, "transports": {"docker": scopes}}))
        .expect("policy encodes")
}

/// One generated node: its files and the images to explain on it.
struct Case {
    main: String,
    drop_ins: Vec<(String, String)>,
    policy: Option<String>,
    user_aliases: Option<String>,
    modes: [Option<&'static str>; 2],
    images: Vec<String>,
    planted: Planted,
}

fn case(rng: &mut Rng) -> Case {
    let mut planted = Planted::default();
    let main = if rng.chance(3) {
        v1(rng)
    } else {
        let mut t = top_level(rng, 70);
        if rng.chance(50) {
            t += &aliases(rng, false);
        }
        for _ in 0..rng.below(6) {
            t += &registry(rng, &mut planted, None);
        }
        t
    };
    let mut drop_ins = Vec::new();
    if rng.chance(40) {
        for n in 0..1 + rng.below(2) {
            let mut t = top_level(rng, 25);
            if rng.chance(30) {
                t += &aliases(rng, true);
            }
            for _ in 0..rng.below(3) {
                // Mostly an entry of the main file, overridden.
                let hint = (!planted.prefixes.is_empty() && rng.chance(60))
                    .then(|| planted.prefixes[rng.below(planted.prefixes.len())].clone());
                t += &registry(rng, &mut planted, hint.as_deref());
            }
            if rng.chance(2) {
                t = v1(rng);
            }
            drop_ins.push((format!("{n:02}-{}.conf", rng.pick(&["a", "b"])), t));
        }
        if rng.chance(10) {
            drop_ins.push(("README".to_string(), "not = [toml".to_string()));
        }
    }
    let policy = rng.chance(70).then(|| policy(rng, &planted));
    // The machine-written short-name-aliases.conf, read before registries.conf.
    let user_aliases = rng.chance(35).then(|| aliases(rng, true));
    let modes = [
        None,
        Some("enforcing"),
        Some("permissive"),
        Some("disabled"),
    ];
    let first = rng.below(4);
    let second = (first + 1 + rng.below(3)) % 4;
    let images = (0..IMAGES_PER_CONFIG)
        .map(|_| image(rng, &planted))
        .collect();
    Case {
        main,
        drop_ins,
        policy,
        user_aliases,
        modes: [modes[first], modes[second]],
        images,
        planted,
    }
}

/// The case's files, written under `dir`.
struct Files {
    conf: PathBuf,
    drop_in_dir: PathBuf,
    policy: Option<PathBuf>,
    user_aliases: Option<PathBuf>,
}

fn write_files(dir: &Path, case: &Case) -> Files {
    let drop_in_dir = dir.join("registries.conf.d");
    std::fs::create_dir_all(&drop_in_dir).expect("case folder");
    let conf = dir.join("registries.conf");
    std::fs::write(&conf, &case.main).expect("registries.conf");
    for (name, text) in &case.drop_ins {
        std::fs::write(drop_in_dir.join(name), text).expect("drop-in");
    }
    let policy = case.policy.as_ref().map(|p| {
        let path = dir.join("policy.json");
        std::fs::write(&path, p).expect("policy.json");
        path
    });
    let user_aliases = case.user_aliases.as_ref().map(|a| {
        let path = dir.join("short-name-aliases.conf");
        std::fs::write(&path, a).expect("short-name-aliases.conf");
        path
    });
    Files {
        conf,
        drop_in_dir,
        policy,
        user_aliases,
    }
}

fn root_script() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("scripts/debian13-root.sh")
}

/// Builds the oracle in the root: its source copied under the shared
/// temporary folder, a Go path whose `github.com/containers/image/v5` is
/// the root's containers/image source. The Go build cache is kept between
/// runs.
fn build_oracle(work: &Path) -> PathBuf {
    let gopath = work.join("gopath");
    let src = work.join("src");
    let link_dir = gopath.join("src/github.com/containers/image");
    std::fs::create_dir_all(&link_dir).expect("Go path");
    std::fs::create_dir_all(&src).expect("oracle source folder");
    std::os::unix::fs::symlink(
        "/usr/share/gocode/src/github.com/containers/image",
        link_dir.join("v5"),
    )
    .expect("the containers/image link");
    std::fs::copy(
        PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/cimage/main.go"),
        src.join("main.go"),
    )
    .expect("oracle source");
    let cache = std::env::temp_dir().join("mirrorpolicy-cimage-oracle-gocache");
    let bin = work.join("oracle");
    let started = Instant::now();
    let out = Command::new(root_script())
        .arg("run")
        .arg("env")
        .arg("GO111MODULE=off")
        .arg(format!("GOPATH={}:/usr/share/gocode", gopath.display()))
        .arg(format!("GOCACHE={}", cache.display()))
        .args([
            "go",
            "build",
            "-tags",
            "containers_image_openpgp exclude_graphdriver_btrfs",
            "-o",
        ])
        .arg(&bin)
        .arg(".")
        .current_dir(&src)
        .output()
        .expect("scripts/debian13-root.sh runs");
    assert!(
        out.status.success(),
        "building the oracle in the Debian 13 root failed (scripts/debian13-root.sh build makes the root):\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!(
        "oracle built against containers/image 5.34 in {:.0?}",
        started.elapsed()
    );
    bin
}

/// One explain run: a node's files, a short-name mode and the images.
struct Run<'a> {
    case: &'a Case,
    files: Files,
    mode: Option<&'static str>,
    user_aliases: PathBuf,
}

/// Every run's answer from containers/image, in order.
fn oracle_answers(bin: &Path, runs: &[Run<'_>]) -> Vec<Value> {
    let mut child = Command::new(root_script())
        .arg("run")
        .arg(bin)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("the oracle runs");
    let mut stdin = child.stdin.take().expect("stdin");
    let requests: Vec<String> = runs
        .iter()
        .map(|r| {
            json!({
                "conf": r.files.conf,
                "dir": r.files.drop_in_dir,
                "policy": r.files.policy.as_ref().map_or(String::new(), |p| p.display().to_string()),
                "userAliases": r.user_aliases,
                "mode": r.mode.unwrap_or(""),
                "images": r.case.images,
            })
            .to_string()
        })
        .collect();
    let writer = std::thread::spawn(move || {
        for line in requests {
            writeln!(stdin, "{line}").expect("oracle stdin");
        }
    });
    let answers: Vec<Value> = BufReader::new(child.stdout.take().expect("stdout"))
        .lines()
        .map(|l| serde_json::from_str(&l.expect("oracle output")).expect("oracle JSON"))
        .collect();
    writer.join().expect("writer");
    assert!(
        child.wait().expect("oracle exit").success(),
        "the oracle failed"
    );
    assert_eq!(answers.len(), runs.len(), "one answer per case");
    answers
}

/// What the tool says for one run.
enum ToolAnswer {
    /// The files cannot be used: exit 2 and the message.
    Refused(String),
    /// Whether the node loads them is undetermined (exit 3, no explanation).
    Undetermined(String),
    /// One explanation per image.
    Items(Vec<Value>),
}

fn tool_answer(run: &Run<'_>) -> ToolAnswer {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_kubectl-mirrorpolicy"));
    cmd.arg("explain")
        .args(&run.case.images)
        .arg("--registries-conf")
        .arg(&run.files.conf)
        .arg("--registries-conf-d")
        .arg(&run.files.drop_in_dir)
        .args(["-o", "json"])
        .env("NO_COLOR", "1");
    if let Some(p) = &run.files.policy {
        cmd.arg("--policy-json").arg(p);
    }
    // A CRI-O sets the short-name mode itself (its files' `short-name-mode`
    // never counts on a node), so the runs that take the mode from the files
    // are containers/image alone, as the library is called here: without a
    // CRI-O release, read as every release reads the files.
    if let Some(m) = run.mode {
        cmd.args(["--crio-version", CRIO, "--short-name-mode", m]);
    }
    if let Some(a) = &run.files.user_aliases {
        cmd.arg("--short-name-aliases").arg(a);
    }
    let out = cmd.output().expect("the tool runs");
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    if out.stdout.is_empty() {
        return match out.status.code() {
            Some(3) => ToolAnswer::Undetermined(stderr),
            Some(2) => ToolAnswer::Refused(stderr),
            other => panic!("explain exited {other:?} without output: {stderr}"),
        };
    }
    let v: Value = serde_json::from_slice(&out.stdout).expect("explain JSON");
    ToolAnswer::Items(match v.get("items") {
        Some(Value::Array(items)) => items.clone(),
        _ => vec![v],
    })
}

/// Counts over a run.
#[derive(Default)]
struct Tally {
    compared: usize,
    undetermined: usize,
    refused_configs: usize,
    with_mirrors: usize,
    oracle_mirrors: usize,
    failed_pulls: usize,
    policies: usize,
    short_names: usize,
    planted_conflicts: usize,
    /// Refused configurations by the kind of containers/image's reason.
    refusals: std::collections::BTreeMap<String, usize>,
}

/// The kind of a containers/image refusal: its message without the file
/// and the values it quotes.
fn refusal_kind(message: &str) -> String {
    let reason = message.rsplit_once("\": ").map_or(message, |(_, r)| r);
    reason
        .split(['\'', '"'])
        .step_by(2)
        .collect::<Vec<_>>()
        .join("…")
}

fn registry_of(v: &Value) -> Value {
    if v.is_null() {
        return Value::Null;
    }
    json!({
        "prefix": v["prefix"], "location": v["location"], "blocked": v["blocked"],
        "insecure": v["insecure"], "mirrorByDigestOnly": v["mirrorByDigestOnly"],
    })
}

fn sources_of(v: &Value) -> Vec<Value> {
    v.as_array()
        .into_iter()
        .flatten()
        .map(|s| json!({"reference": s["reference"], "insecure": s["insecure"], "blocked": s["blocked"]}))
        .collect()
}

/// Whether the tool's signature policy for a candidate is the one
/// containers/image applied.
fn same_policy(tool: &Value, oracle: &Value) -> Result<(), String> {
    let first = &tool["signature"]["requirements"][0];
    let message = oracle["message"].as_str().unwrap_or_default();
    let allowed = oracle["allowed"].as_bool() == Some(true);
    let ok = match first["type"].as_str() {
        Some("signedBy") => {
            let key = first["keyPath"].as_str().unwrap_or("?");
            !allowed && message.contains(&format!("{key}:"))
        }
        Some("reject") => !allowed && message.contains("rejected by policy"),
        Some("insecureAcceptAnything") => allowed,
        _ => false,
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "policy: tool applies {} ({}), containers/image: allowed {allowed}, {message:?}",
            tool["signature"]["scope"], tool["signature"]["requirements"]
        ))
    }
}

/// The first difference between the tool's explanation of one image and
/// containers/image's answer, if any.
fn image_divergence(
    tool: &Value,
    oracle: &Value,
    with_policy: bool,
    tally: &mut Tally,
) -> Option<String> {
    let tool_candidates = tool["candidates"].as_array().cloned().unwrap_or_default();
    if let Some(e) = oracle["error"].as_str() {
        return (!tool_candidates.is_empty() || tool["error"].is_null()).then(|| {
            format!(
                "containers/image cannot resolve it ({e}); tool: {} candidates, error {}",
                tool_candidates.len(),
                tool["error"]
            )
        });
    }
    let oracle_candidates = oracle["candidates"].as_array().cloned().unwrap_or_default();
    let refs = |c: &[Value]| -> Vec<Value> { c.iter().map(|c| c["reference"].clone()).collect() };
    if refs(&tool_candidates) != refs(&oracle_candidates) {
        return Some(format!(
            "candidates: tool {:?} (error {}), containers/image {:?}",
            refs(&tool_candidates),
            tool["error"],
            refs(&oracle_candidates)
        ));
    }
    for (t, o) in tool_candidates.iter().zip(&oracle_candidates) {
        let r = &o["reference"];
        if registry_of(&t["registry"]) != registry_of(&o["registry"]) {
            return Some(format!(
                "{r}: entry: tool {}, containers/image {}",
                registry_of(&t["registry"]),
                o["registry"]
            ));
        }
        match o["error"].as_str() {
            Some(e) => {
                tally.failed_pulls += 1;
                if t["error"].is_null() || !sources_of(&t["sources"]).is_empty() {
                    return Some(format!(
                        "{r}: containers/image fails the pull before any endpoint ({e}); tool: sources {:?}, error {}",
                        sources_of(&t["sources"]),
                        t["error"]
                    ));
                }
            }
            None => {
                let (ts, os) = (sources_of(&t["sources"]), sources_of(&o["sources"]));
                if !t["error"].is_null() || ts != os {
                    return Some(format!(
                        "{r}: sources: tool {ts:?} (error {}), containers/image {os:?}",
                        t["error"]
                    ));
                }
                tally.with_mirrors += usize::from(ts.len() > 1);
                tally.oracle_mirrors += usize::from(os.len() > 1);
            }
        }
        if with_policy {
            tally.policies += 1;
            if let Err(e) = same_policy(t, &o["policy"]) {
                return Some(format!("{r}: {e}"));
            }
        }
    }
    None
}

/// Compares one run; `Err` describes the first divergence.
fn compare(
    run: &Run<'_>,
    tool: &ToolAnswer,
    oracle: &Value,
    tally: &mut Tally,
) -> Result<(), String> {
    let n = run.case.images.len();
    if run.case.planted.case_conflict {
        tally.planted_conflicts += 1;
        // The node reads either value: the tool must not pick one.
        return match tool {
            ToolAnswer::Undetermined(_) | ToolAnswer::Refused(_) => {
                tally.undetermined += n;
                Ok(())
            }
            ToolAnswer::Items(_) => Err(
                "two keys differing only in case, with different values: the tool gives an answer, BurntSushi/toml reads either value"
                    .to_string(),
            ),
        };
    }
    let oracle_error = oracle["configError"]
        .as_str()
        .or_else(|| oracle["policyError"].as_str());
    match (tool, oracle_error) {
        (ToolAnswer::Undetermined(why), _) => Err(format!(
            "tool: undetermined ({why}), containers/image: {}",
            oracle_error.unwrap_or("loads the files")
        )),
        (ToolAnswer::Refused(_), Some(e)) => {
            *tally.refusals.entry(refusal_kind(e)).or_default() += 1;
            tally.refused_configs += 1;
            tally.compared += n;
            Ok(())
        }
        (ToolAnswer::Refused(why), None) => Err(format!(
            "the tool refuses the files ({}), containers/image loads them",
            why.trim()
        )),
        (ToolAnswer::Items(_), Some(e)) => Err(format!(
            "containers/image refuses the files ({e}), the tool explains"
        )),
        (ToolAnswer::Items(items), None) => {
            let images = oracle["images"].as_array().cloned().unwrap_or_default();
            assert_eq!(items.len(), n, "one explanation per image");
            for ((name, t), o) in run.case.images.iter().zip(items).zip(&images) {
                if t["undetermined"].as_bool() == Some(true) {
                    tally.undetermined += 1;
                    continue;
                }
                tally.compared += 1;
                tally.short_names += usize::from(
                    t["candidates"][0]["resolvedBy"]["kind"].as_str() != Some("qualified")
                        && o["error"].is_null(),
                );
                if let Some(d) = image_divergence(t, o, run.files.policy.is_some(), tally) {
                    return Err(format!("{name}: {d}\n  tool: {t}\n  containers/image: {o}"));
                }
            }
            Ok(())
        }
    }
}

fn describe(run: &Run<'_>) -> String {
    let mut s = format!(
        "short-name mode {}\nregistries.conf:\n{}",
        run.mode.unwrap_or("(from the files)"),
        run.case.main
    );
    for (name, text) in &run.case.drop_ins {
        write!(s, "registries.conf.d/{name}:\n{text}").unwrap();
    }
    if let Some(p) = &run.case.policy {
        write!(s, "policy.json:\n{p}\n").unwrap();
    }
    if let Some(a) = &run.case.user_aliases {
        write!(s, "short-name-aliases.conf:\n{a}").unwrap();
    }
    s
}

fn seed() -> u64 {
    match std::env::var("MIRRORPOLICY_ORACLE_SEED") {
        Ok(s) => s
            .parse()
            .expect("MIRRORPOLICY_ORACLE_SEED: an unsigned integer"),
        Err(_) => std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .expect("a clock after 1970")
            .as_nanos() as u64,
    }
}

#[test]
#[ignore = "needs the Debian 13 root (scripts/debian13-root.sh build) and root for chroot"]
fn explain_as_containers_image_5_34() {
    let started = Instant::now();
    let seed = seed();
    eprintln!("seed {seed} (replay with MIRRORPOLICY_ORACLE_SEED={seed})");
    let work = std::env::temp_dir().join(format!("mirrorpolicy-cimage-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&work);
    std::fs::create_dir_all(&work).expect("work folder");
    let bin = build_oracle(&work);

    let mut rng = Rng(seed);
    let cases: Vec<Case> = (0..CONFIGS).map(|_| case(&mut rng)).collect();
    // Where a case without its own short-name-aliases.conf points
    // containers/image: no file (the tool is not given one).
    let absent = work.join("absent/short-name-aliases.conf");
    let runs: Vec<Run<'_>> = cases
        .iter()
        .enumerate()
        .flat_map(|(i, case)| {
            let files = write_files(&work.join(format!("case-{i}")), case);
            case.modes.map(|mode| Run {
                case,
                files: Files {
                    conf: files.conf.clone(),
                    drop_in_dir: files.drop_in_dir.clone(),
                    policy: files.policy.clone(),
                    user_aliases: files.user_aliases.clone(),
                },
                mode,
                user_aliases: files.user_aliases.clone().unwrap_or_else(|| absent.clone()),
            })
        })
        .collect();

    let (oracle, tool) = std::thread::scope(|s| {
        let oracle = s.spawn(|| oracle_answers(&bin, &runs));
        let half = runs.len().div_ceil(2);
        let tool: Vec<ToolAnswer> = runs
            .chunks(half)
            .map(|chunk| s.spawn(move || chunk.iter().map(tool_answer).collect::<Vec<_>>()))
            .collect::<Vec<_>>()
            .into_iter()
            .flat_map(|h| h.join().expect("tool runs"))
            .collect();
        (oracle.join().expect("oracle"), tool)
    });

    let mut tally = Tally::default();
    let mut divergences = Vec::new();
    for ((run, tool), oracle) in runs.iter().zip(&tool).zip(&oracle) {
        if let Err(d) = compare(run, tool, oracle, &mut tally) {
            divergences.push(format!("seed {seed}\n{}{d}", describe(run)));
        }
    }
    eprintln!(
        "{} runs, {} image answers compared ({} in {} refused configurations), {} undetermined \
         ({} configurations with keys differing only in case), {} candidates with mirrors \
         (containers/image: {}), {} pulls failing before any endpoint, {} short-name candidates, \
         {} policy lookups; {:.0?}",
        runs.len(),
        tally.compared,
        tally.refused_configs * IMAGES_PER_CONFIG,
        tally.refused_configs,
        tally.undetermined,
        tally.planted_conflicts,
        tally.with_mirrors,
        tally.oracle_mirrors,
        tally.failed_pulls,
        tally.short_names,
        tally.policies,
        started.elapsed()
    );
    for (kind, n) in &tally.refusals {
        eprintln!("  refused {n}: {kind}");
    }
    let all = work.join("divergences.txt");
    std::fs::write(&all, divergences.join("\n\n")).expect("divergence list");
    assert!(
        divergences.is_empty(),
        "{} runs diverge from containers/image (all in {}); the first:\n\n{}",
        divergences.len(),
        all.display(),
        divergences
            .iter()
            .take(3)
            .cloned()
            .collect::<Vec<_>>()
            .join("\n\n")
    );
    let _ = std::fs::remove_dir_all(&work);
    assert!(
        tally.compared >= MIN_COMPARED,
        "only {} image answers compared",
        tally.compared
    );
    // Not a vacuous comparison: mirrors, failures, short names, policies
    // and refused files all occur.
    assert!(
        tally.with_mirrors * 7 >= tally.compared && tally.oracle_mirrors == tally.with_mirrors,
        "too few candidates with mirrors: {}",
        tally.with_mirrors
    );
    assert!(tally.failed_pulls >= 50, "too few failing pulls");
    assert!(tally.short_names >= 1000, "too few short names");
    assert!(tally.policies >= 5000, "too few policy lookups");
    assert!(
        tally.refused_configs >= 20,
        "too few refused configurations"
    );
    assert!(
        tally.planted_conflicts >= 10,
        "too few keys differing only in case"
    );
}
