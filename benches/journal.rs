//! Writes a realistic mixed CRI-O journal of a given size, for measuring
//! `explain --journal-file` and `audit --journal-file` on logs of real
//! size (BENCHMARKS.md has the commands and the figures).
//!
//! ```sh
//! cargo bench --bench journal -- [--out DIR] [--mib N]
//! ```
//!
//! DIR (a folder under the system's temporary folder by default) gets:
//! `crio.log`, about N MiB (64 by default) of `oc adm node-logs -u crio`
//! output of three nodes merged as a must-gather keeps it;
//! `registries.conf`, the configuration the pulls were made with (for
//! `explain --registries-conf`); and `itms.yaml`, the same mirrors as the
//! ImageTagMirrorSets the MCO renders it from (for `audit -f`).
//!
//! The log is what a busy node logs, not pull lines alone: most lines are
//! CRI-O's other messages (image status checks, sandboxes, containers) and
//! other units' lines (the kubelet, systemd), about one line in twenty is a
//! pull's. Pulls run several at a time per node and interleave. Each node
//! logs as a different CRI-O release: node 0 as 1.31 (logrus' old `time=`
//! format, `Pulled image: name@digest`), node 1 as 1.33/1.34 (RFC 3339
//! times; a failed image pull repeats the whole walk for the OCI-artifact
//! attempt), node 2 as 1.35+ (`Pulled image:` an image ID; the
//! `Falling back to pull … as an OCI artifact` line carrying the error).
//! Every shape is there: served by the first mirror (sometimes with the
//! source named twice, as CRI-O can access an image twice), by the second,
//! refused at a blocked source, retried by the kubelet.

use std::fmt::Write as _;
use std::fs;
use std::io::{BufWriter, Write};
use std::path::PathBuf;

/// Teams (registry namespaces) and images per team.
const TEAMS: usize = 30;
const APPS: usize = 12;
/// Every `BLOCKED`-th team never contacts its source.
const BLOCKED: usize = 5;
const HOSTS: [&str; 3] = [
    "worker-0.example.com",
    "worker-1.example.com",
    "worker-2.example.com",
];

fn main() {
    let mut out = std::env::temp_dir().join("mirrorpolicy-journal");
    let mut mib: u64 = 64;
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--out" => out = PathBuf::from(args.next().expect("--out DIR")),
            "--mib" => mib = args.next().and_then(|v| v.parse().ok()).expect("--mib N"),
            // `cargo bench` passes --bench.
            _ => {}
        }
    }
    fs::create_dir_all(&out).expect("creating the output folder");
    fs::write(out.join("registries.conf"), registries_conf()).expect("writing registries.conf");
    fs::write(out.join("itms.yaml"), itms()).expect("writing itms.yaml");
    let file = fs::File::create(out.join("crio.log")).expect("creating crio.log");
    let mut w = BufWriter::with_capacity(1 << 20, file);
    let written = Journal::new()
        .write(&mut w, mib << 20)
        .expect("writing crio.log");
    w.flush().expect("writing crio.log");
    eprintln!(
        "{}: {} MiB of journal, {} pulls; explain e.g. {}",
        out.display(),
        written.0 >> 20,
        written.1,
        image(BLOCKED, 7, 1)
    );
}

fn image(team: usize, app: usize, tag: u64) -> String {
    format!("quay.io/team{team}/app{app}:v{tag}")
}

fn registries_conf() -> String {
    let mut s = String::from("unqualified-search-registries = [\"registry.access.redhat.com\", \"docker.io\"]\nshort-name-mode = \"\"\n");
    for t in 0..TEAMS {
        let _ = write!(
            s,
            "\n[[registry]]\n  prefix = \"\"\n  location = \"quay.io/team{t}\"\n"
        );
        if t % BLOCKED == 0 {
            s.push_str("  blocked = true\n");
        }
        for m in ["m1.example.com", "m2.example.com:5000"] {
            let _ = write!(
                s,
                "\n  [[registry.mirror]]\n    location = \"{m}/team{t}\"\n    pull-from-mirror = \"tag-only\"\n"
            );
        }
    }
    s
}

fn itms() -> String {
    let mut s = String::from("apiVersion: config.openshift.io/v1\nkind: ImageTagMirrorSet\nmetadata:\n  name: teams\nspec:\n  imageTagMirrors:\n");
    for t in 0..TEAMS {
        let _ = write!(
            s,
            "  - source: quay.io/team{t}\n    mirrors:\n    - m1.example.com/team{t}\n    - m2.example.com:5000/team{t}\n"
        );
        if t % BLOCKED == 0 {
            s.push_str("    mirrorSourcePolicy: NeverContactSource\n");
        }
    }
    s
}

/// A small deterministic generator (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    fn hex(&mut self, len: usize) -> String {
        let mut s = String::with_capacity(len);
        while s.len() < len {
            let _ = write!(s, "{:016x}", self.next());
        }
        s.truncate(len);
        s
    }
}

/// A pull in flight: the lines it has left, in order.
struct Pull {
    lines: Vec<(Option<String>, String)>,
}

struct Journal {
    rng: Rng,
    /// Microseconds since the epoch.
    now: u64,
    pulls: [Vec<Pull>; 3],
}

impl Journal {
    fn new() -> Self {
        Self {
            rng: Rng(0x9e37_79b9_7f4a_7c15),
            // 2025-06-01T00:00:00Z.
            now: 1_748_736_000_000_000,
            pulls: [Vec::new(), Vec::new(), Vec::new()],
        }
    }

    /// Writes lines until `size` bytes: the bytes written and the pulls begun.
    fn write(&mut self, w: &mut impl Write, size: u64) -> std::io::Result<(u64, u64)> {
        let (mut written, mut begun) = (0u64, 0u64);
        let mut line = String::with_capacity(4096);
        while written < size {
            // About a day of three busy nodes' logs per GiB.
            self.now += 2_000 + self.rng.below(38_000);
            let node = self.rng.below(3) as usize;
            line.clear();
            let roll = self.rng.below(100);
            if roll < 5 {
                if self.pulls[node].len() < 4 && self.rng.below(3) == 0 {
                    let pull = self.pull(node);
                    self.pulls[node].push(pull);
                    begun += 1;
                }
                if !self.pulls[node].is_empty() {
                    let at = self.rng.below(self.pulls[node].len() as u64) as usize;
                    let (id, msg) = self.pulls[node][at].lines.remove(0);
                    if self.pulls[node][at].lines.is_empty() {
                        self.pulls[node].remove(at);
                    }
                    self.crio(&mut line, node, "info", &msg, id.as_deref());
                }
            }
            if line.is_empty() {
                self.noise(&mut line, node, roll);
            }
            w.write_all(line.as_bytes())?;
            written += line.len() as u64;
        }
        Ok((written, begun))
    }

    /// A pull of one image on `node`, every line it logs (as the node's
    /// CRI-O release logs it).
    fn pull(&mut self, node: usize) -> Pull {
        let (team, app) = (
            self.rng.below(TEAMS as u64) as usize,
            self.rng.below(APPS as u64) as usize,
        );
        let tag = 1 + self.rng.below(3);
        let img = image(team, app, tag);
        let m1 = format!("m1.example.com/team{team}/app{app}:v{tag}");
        let m2 = format!("m2.example.com:5000/team{team}/app{app}:v{tag}");
        let id = self.rng.hex(8);
        let blocked = team % BLOCKED == 0;
        let mut lines = vec![(Some(id.clone()), format!("Pulling image: {img}"))];
        let trying = |r: &str| (None, format!("Trying to access \"{r}\""));
        let roll = self.rng.below(100);
        let walk_all = [trying(&m1), trying(&m2), trying(&img)];
        if roll < 60 {
            lines.push(trying(&m1));
            if roll < 8 {
                lines.push(trying(&m1));
            }
        } else if roll < 85 {
            lines.extend([trying(&m1), trying(&m2)]);
        } else {
            // Every source fails (a blocked source is refused).
            lines.extend(walk_all.iter().cloned());
            let source_err = match blocked {
                true => format!("docker://{img} is blocked in registries.conf"),
                false => {
                    format!("reading manifest v{tag} in quay.io/team{team}/app{app}: unauthorized")
                }
            };
            match node {
                1 => lines.extend(walk_all.iter().cloned()),
                2 => {
                    lines.push((Some(id.clone()), format!(
                        "Falling back to pull {img} as an OCI artifact: initializing source docker://{img}: (Mirrors also failed: [{m1}: reading manifest v{tag} in m1.example.com/team{team}/app{app}: manifest unknown]\n[{m2}: pinging container registry m2.example.com:5000: Get \"https://m2.example.com:5000/v2/\": dial tcp 10.0.0.7:5000: connect: connection refused]): {img}: {source_err}"
                    )));
                    lines.extend(walk_all.iter().cloned());
                }
                _ => {}
            }
            return Pull { lines };
        }
        let result = match node {
            2 => self.rng.hex(64),
            _ => format!("quay.io/team{team}/app{app}@sha256:{}", self.rng.hex(64)),
        };
        lines.push((Some(id), format!("Pulled image: {result}")));
        Pull { lines }
    }

    /// A line that is no pull's: CRI-O's other messages, the kubelet's,
    /// systemd's.
    fn noise(&mut self, line: &mut String, node: usize, roll: u64) {
        let c = self.rng.hex(64);
        let (team, app) = (self.rng.below(TEAMS as u64), self.rng.below(APPS as u64));
        match roll % 10 {
            0..=3 => {
                let id = self.rng.hex(8);
                self.crio_call(
                    line,
                    node,
                    "info",
                    &format!("Checking image status: quay.io/team{team}/app{app}:v1"),
                    Some((&id, "ImageStatus")),
                );
            }
            4 => {
                let id = self.rng.hex(8);
                let msg = format!("Image status: &ImageStatusResponse{{Image:&Image{{Id:{c},RepoTags:[quay.io/team{team}/app{app}:v1],RepoDigests:[quay.io/team{team}/app{app}@sha256:{c}],Size_:{},Uid:nil,Username:,Spec:&ImageSpec{{Image:,Annotations:map[string]string{{}},UserSpecifiedImage:,RuntimeHandler:,}},Pinned:false,}},Info:map[string]string{{}},}}", 100_000_000 + self.rng.below(900_000_000));
                self.crio_call(line, node, "info", &msg, Some((&id, "ImageStatus")));
            }
            5 => {
                let id = self.rng.hex(8);
                self.crio_call(
                    line,
                    node,
                    "info",
                    &format!(
                        "Created container {}: team{team}/app{app}-7d9f8c-x2x9k/app",
                        &c[..12]
                    ),
                    Some((&id, "CreateContainer")),
                );
            }
            6 => {
                let id = self.rng.hex(8);
                self.crio_call(
                    line,
                    node,
                    "info",
                    &format!(
                        "Started container {}: team{team}/app{app}-7d9f8c-x2x9k/app",
                        &c[12..24]
                    ),
                    Some((&id, "StartContainer")),
                );
            }
            7 => {
                self.prefix(line, node, "kubenswrapper[2456]");
                let _ = writeln!(
                    line,
                    "I0601 10:00:00.000000    2456 kubelet.go:2470] \"SyncLoop (PLEG): event for pod\" pod=\"team{team}/app{app}-7d9f8c-x2x9k\" event={{\"ID\":\"{}\",\"Type\":\"ContainerStarted\",\"Data\":\"{c}\"}}",
                    &c[..32]
                );
            }
            8 => {
                self.prefix(line, node, "systemd[1]");
                let _ = writeln!(line, "crio-conmon-{c}.scope: Deactivated successfully.");
            }
            _ => {
                let id = self.rng.hex(8);
                self.crio_call(
                    line,
                    node,
                    "info",
                    &format!(
                        "Removed container {}: team{team}/app{app}-7d9f8c-x2x9k/app",
                        &c[..12]
                    ),
                    Some((&id, "RemoveContainer")),
                );
            }
        }
    }

    fn prefix(&self, line: &mut String, node: usize, ident: &str) {
        let (mon, day, h, m, s) = civil(self.now / 1_000_000);
        let us = self.now % 1_000_000;
        let _ = write!(
            line,
            "{mon} {day:02} {h:02}:{m:02}:{s:02}.{us:06} {} {ident}: ",
            HOSTS[node]
        );
    }

    /// A CRI-O line in logrus' text format, `time=` as node's release writes it.
    fn crio(&self, line: &mut String, node: usize, level: &str, msg: &str, id: Option<&str>) {
        self.crio_call(line, node, level, msg, id.map(|id| (id, "PullImage")));
    }

    /// A CRI-O line of the request `id` to the image service's `method`.
    fn crio_call(
        &self,
        line: &mut String,
        node: usize,
        level: &str,
        msg: &str,
        call: Option<(&str, &str)>,
    ) {
        self.prefix(line, node, "crio[2211]");
        let secs = self.now / 1_000_000;
        let (y, mo, d) = date(secs / 86_400);
        let (h, m, s) = ((secs / 3600) % 24, (secs / 60) % 60, secs % 60);
        let ns = (self.now % 1_000_000) * 1000;
        let _ = match node {
            0 => write!(
                line,
                "time=\"{y}-{mo:02}-{d:02} {h:02}:{m:02}:{s:02}.{ns:09}Z\""
            ),
            _ => write!(
                line,
                "time=\"{y}-{mo:02}-{d:02}T{h:02}:{m:02}:{s:02}.{ns:09}Z\""
            ),
        };
        // Go's %q, as logrus quotes a message with spaces.
        let quoted = msg
            .replace('\\', "\\\\")
            .replace('"', "\\\"")
            .replace('\n', "\\n");
        let _ = write!(line, " level={level} msg=\"{quoted}\"");
        if let Some((id, method)) = call {
            let service = match method {
                "PullImage" | "ImageStatus" => "ImageService",
                _ => "RuntimeService",
            };
            let _ = write!(line, " id={id} name=/runtime.v1.{service}/{method}");
        }
        line.push('\n');
    }
}

/// Month name, day, hour, minute, second of Unix seconds (UTC).
fn civil(secs: u64) -> (&'static str, u64, u64, u64, u64) {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let (_, mo, d) = date(secs / 86_400);
    (
        MONTHS[(mo - 1) as usize],
        d,
        (secs / 3600) % 24,
        (secs / 60) % 60,
        secs % 60,
    )
}

/// Year, month, day of days since the epoch (Howard Hinnant's civil_from_days).
fn date(days: u64) -> (i64, u64, u64) {
    let z = days as i64 + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u64;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u64;
    (if m <= 2 { y + 1 } else { y }, m, d)
}
