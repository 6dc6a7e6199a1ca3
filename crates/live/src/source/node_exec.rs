//! Reading the nodes' files live: one `pods/exec` per node into the node's
//! existing machine-config-daemon pod, as must-gather does.
//!
//! The daemon pod (namespace `openshift-machine-config-operator`, label
//! `k8s-app=machine-config-daemon`, container `machine-config-daemon`)
//! mounts the host's root at `/rootfs`. One POSIX `sh` script ([`SCRIPT`])
//! runs there, reading only files under that root with `cat`-class tools
//! of the image (`base64`, `sha256sum`, `readlink`, `stat`): no pod is created,
//! no chroot is made and nothing is written. Its output is one framed
//! stream (version 2; one record per host path that exists or cannot be
//! resolved):
//!
//! ```text
//! mirrorpolicy-node-files 2
//! P /etc/containers/registries.conf       a path of node_paths::FILES, FOLDERS or a certificate,
//! S 81a4 0 0                              lstat of it (hex st_mode, uid, gid), parents resolved,
//! L /usr/share/containers/registries.conf where it resolves, when elsewhere (links),
//! F                                       its content in base64,
//! <base64 lines>
//! .                                       ended by a line holding a dot;
//! C <sha256 hex>                          or, for a certificate, its digest;
//! U <why>                                 or why it cannot be resolved or read
//! END
//! ```
//!
//! Nodes are read a bounded number at a time, each under a timeout; a node
//! that cannot be read is [`NodeRead::NotRead`] with the reason and the
//! others go on. A 403 on `pods/exec` is the same for every node (RBAC is
//! per namespace) and stops the read as [`ClusterError::Forbidden`].

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use base64::Engine;
use futures_util::StreamExt;
use serde_json::Value;
use tokio::sync::Semaphore;
use tokio::task::JoinSet;
use tokio_tungstenite::tungstenite::Message;

use super::api::{encode_query, ClusterError, Connection, Forbidden, Upgrade, PODS, PODS_EXEC};
use crate::node_files::{FileMeta, NodeFiles, NodeRead};
use crate::node_paths::{is_cert_path, is_content_path, is_recorded_path};

/// The machine-config daemon's namespace.
pub const NAMESPACE: &str = "openshift-machine-config-operator";
/// The daemon pods' label.
pub const DAEMON_SELECTOR: &str = "k8s-app=machine-config-daemon";
/// The daemon's container.
pub const CONTAINER: &str = "machine-config-daemon";
/// Where the daemon pod mounts the host's root.
pub const ROOT: &str = "/rootfs";

/// The first line of the script's output (the format's version).
const HEADER: &str = "mirrorpolicy-node-files 2";

/// The script run in the daemon pod, the host's root as `$1`. POSIX `sh`
/// with coreutils only (`base64`, `sha256sum`, `readlink`, `stat`); reads,
/// never writes. Names holding a newline are skipped (they cannot be framed
/// and no runtime file is named so).
///
/// Every path is resolved as the host's kernel resolves it, one component
/// at a time under the host's root: a link's target read with `readlink`,
/// an absolute target restarting at the host's root, `..` never climbing
/// above it, at most 40 links (the kernel's limit). A path whose links
/// dangle, loop or cross a non-folder is reported with why (`U`), never
/// taken for absent. The folders are listed through their links; whether
/// the runtime does too is the reader's rule
/// ([`crate::node_paths::follows_folder_link`]).
pub const SCRIPT: &str = r#"r=$1
nl='
'
if [ ! -d "$r/etc" ]; then
  echo "no host file system at $r: the pod does not mount the host's root there" >&2
  exit 2
fi
echo 'mirrorpolicy-node-files 2'
resolve() {
  rs_todo=$1 rp= rs_hops=0
  while :; do
    while :; do case $rs_todo in /*) rs_todo=${rs_todo#/} ;; *) break ;; esac; done
    [ -n "$rs_todo" ] || break
    case $rs_todo in
      */*) rs_c=${rs_todo%%/*} rs_todo=${rs_todo#*/} rs_more=1 ;;
      *) rs_c=$rs_todo rs_todo= rs_more=0 ;;
    esac
    case $rs_c in
      .) continue ;;
      ..) rp=${rp%/*}; continue ;;
    esac
    rs_p=$rp/$rs_c
    if [ -h "$r$rs_p" ] && [ "$rs_more$2" != 00 ]; then
      rs_hops=$((rs_hops + 1))
      if [ "$rs_hops" -gt 40 ]; then
        why="too many levels of symbolic links"
        return 1
      fi
      rs_t=$(readlink "$r$rs_p") || { why="$rs_p: the link cannot be read"; return 1; }
      if [ -z "$rs_t" ]; then
        why="$rs_p: no such file or directory (an empty link)"
        return 1
      fi
      case $rs_t in /*) rp= ;; esac
      if [ "$rs_more" = 1 ]; then rs_todo=$rs_t/$rs_todo; else rs_todo=$rs_t; fi
      continue
    fi
    if [ "$rs_more" = 1 ]; then
      if [ ! -e "$r$rs_p" ]; then
        why="$rs_p: no such file or directory"
        [ "$rs_hops" != 0 ] || why=
        return 1
      fi
      if [ ! -d "$r$rs_p" ]; then
        why="$rs_p: not a directory"
        return 1
      fi
    fi
    rp=$rs_p
  done
  [ -n "$rp" ] || rp=/
}
record() {
  if ! resolve "$1" 0; then
    [ -n "$why" ] || return 1
    echo "P $1"
    echo "U $why"
    return 1
  fi
  [ -e "$r$rp" ] || [ -h "$r$rp" ] || return 1
  echo "P $1"
  rc_link=0
  [ ! -h "$r$rp" ] || rc_link=1
  rc_s=$(stat -c '%f %u %g' "$r$rp") || { echo "cannot stat $1" >&2; exit 3; }
  echo "S $rc_s"
  if ! resolve "$1" 1; then
    echo "U $why"
    return 1
  fi
  [ "$rp" = "$1" ] || echo "L $rp"
  if [ ! -e "$r$rp" ]; then
    echo "U $rp: no such file or directory"
    return 1
  fi
}
one() {
  record "$1" || return 0
  if [ -d "$r$rp" ]; then
    case $2$rc_link in
      folder0 | cert0) ;;
      *) echo "U $rp: is a directory" ;;
    esac
    return 0
  fi
  if [ ! -f "$r$rp" ]; then
    echo "U $rp: not a regular file"
    return 0
  fi
  if [ "$2" = cert ]; then
    rc_s=$(sha256sum < "$r$rp") || { echo "cannot read $1" >&2; exit 3; }
    echo "C ${rc_s%% *}"
    return 0
  fi
  echo F
  base64 < "$r$rp" || { echo "cannot read $1" >&2; exit 3; }
  echo .
}
for f in /etc/containers/registries.conf /etc/containers/policy.json /etc/machine-config-daemon/currentconfig; do
  one "$f"
done
for d in /etc/containers/registries.conf.d /etc/containers/registries.d /etc/crio/policies; do
  record "$d" || continue
  [ -d "$r$rp" ] || { echo "U $rp: not a directory"; continue; }
  for e in "$r$rp"/* "$r$rp"/.[!.]* "$r$rp"/..?*; do
    [ -e "$e" ] || [ -h "$e" ] || continue
    n=${e##*/}
    case $n in *"$nl"*) continue ;; esac
    one "$d/$n" folder
  done
done
for d in /etc/docker/certs.d /etc/containers/certs.d; do
  resolve "$d" 1 && [ -d "$r$rp" ] || continue
  for h in "$r$rp"/* "$r$rp"/.[!.]* "$r$rp"/..?*; do
    hn=${h##*/}
    case $hn in *"$nl"*) continue ;; esac
    resolve "$d/$hn" 1 && [ -d "$r$rp" ] || continue
    for e in "$r$rp"/* "$r$rp"/.[!.]* "$r$rp"/..?*; do
      [ -e "$e" ] || [ -h "$e" ] || continue
      n=${e##*/}
      case $n in *"$nl"*) continue ;; esac
      one "$d/$hn/$n" cert
    done
  done
done
echo END
"#;

/// How to read the nodes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadOptions {
    /// How many nodes are read at one time.
    pub concurrency: usize,
    /// The limit on one node's read (handshake, command and output).
    pub timeout: Duration,
}

/// The default number of nodes read at one time.
pub const DEFAULT_CONCURRENCY: usize = 10;
/// The default limit on one node's read.
pub const DEFAULT_TIMEOUT: Duration = Duration::from_secs(60);

impl Default for ReadOptions {
    fn default() -> Self {
        Self {
            concurrency: DEFAULT_CONCURRENCY,
            timeout: DEFAULT_TIMEOUT,
        }
    }
}

/// The `pods/exec` path that runs [`SCRIPT`] in `pod`.
pub fn exec_path(pod: &str) -> String {
    let mut query = vec![
        format!("container={CONTAINER}"),
        "stdout=true".to_string(),
        "stderr=true".to_string(),
    ];
    for arg in ["sh", "-c", SCRIPT, "sh", ROOT] {
        query.push(format!("command={}", encode_query(arg)));
    }
    format!(
        "{}/{pod}/exec?{}",
        PODS.list_path(Some(NAMESPACE)),
        query.join("&")
    )
}

/// Reads the files of `nodes`, in that order: through each node's daemon
/// pod, [`ReadOptions::concurrency`] at a time. A node that cannot be read
/// is [`NodeRead::NotRead`] saying why. Errors are what stops every read:
/// the daemon pods cannot be listed, or `pods/exec` is forbidden.
pub async fn read_nodes(
    connection: &Connection,
    nodes: &[String],
    options: &ReadOptions,
) -> Result<Vec<NodeRead>, ClusterError> {
    let pods = daemon_pods(connection).await?;
    let semaphore = Arc::new(Semaphore::new(options.concurrency.max(1)));
    let mut tasks = JoinSet::new();
    let mut results: Vec<Option<NodeRead>> = vec![None; nodes.len()];
    for (index, node) in nodes.iter().enumerate() {
        let Some(pod) = pods.get(node) else {
            results[index] = Some(NodeRead::NotRead {
                node: node.clone(),
                why: format!(
                    "no running machine-config-daemon pod on the node (namespace {NAMESPACE}, label {DAEMON_SELECTOR})"
                ),
            });
            continue;
        };
        let connection = connection.clone();
        let semaphore = Arc::clone(&semaphore);
        let (node, pod, timeout) = (node.clone(), pod.clone(), options.timeout);
        tasks.spawn(async move {
            let _permit = semaphore.acquire_owned().await;
            let outcome = match tokio::time::timeout(timeout, read_node(&connection, &pod)).await {
                Ok(outcome) => outcome,
                Err(_) => Ok(Err(format!(
                    "no complete answer from pod {pod} within {}",
                    crate::duration::text(timeout)
                ))),
            };
            (index, node, outcome)
        });
    }
    while let Some(joined) = tasks.join_next().await {
        let Ok((index, node, outcome)) = joined else {
            continue;
        };
        results[index] = Some(match outcome? {
            Ok(mut files) => {
                files.node = node;
                NodeRead::Read(files)
            }
            Err(why) => NodeRead::NotRead { node, why },
        });
    }
    Ok(nodes
        .iter()
        .zip(results)
        .map(|(node, result)| {
            result.unwrap_or_else(|| NodeRead::NotRead {
                node: node.clone(),
                why: "the read stopped before it finished".to_string(),
            })
        })
        .collect())
}

/// The daemon pod of each node: node name → pod name. A running pod wins
/// over one that is not (a pod being replaced), then the first by name.
async fn daemon_pods(connection: &Connection) -> Result<BTreeMap<String, String>, ClusterError> {
    let items = connection
        .list_items(&PODS, NAMESPACE, DAEMON_SELECTOR)
        .await?
        .unwrap_or_default();
    let mut pods: BTreeMap<String, (bool, String)> = BTreeMap::new();
    for pod in &items {
        let text = |pointer: &str| pod.pointer(pointer).and_then(Value::as_str);
        let (Some(name), Some(node)) = (text("/metadata/name"), text("/spec/nodeName")) else {
            continue;
        };
        if pod.pointer("/metadata/deletionTimestamp").is_some() {
            continue;
        }
        let running = text("/status/phase").is_none_or(|phase| phase == "Running");
        let better = match pods.get(node) {
            None => true,
            Some((was_running, was)) => {
                (running && !was_running) || (running == *was_running && name < was.as_str())
            }
        };
        if better {
            pods.insert(node.to_string(), (running, name.to_string()));
        }
    }
    Ok(pods
        .into_iter()
        .filter(|(_, (running, _))| *running)
        .map(|(node, (_, pod))| (node, pod))
        .collect())
}

/// Reads one node through `pod`: `Ok(Err(why))` when that node cannot be
/// read, `Err` when no node can (a 403 on `pods/exec`).
async fn read_node(
    connection: &Connection,
    pod: &str,
) -> Result<Result<NodeFiles, String>, ClusterError> {
    let path = exec_path(pod);
    let stream = match connection.upgrade(&path).await {
        Ok(Upgrade::Stream(stream)) => stream,
        Ok(Upgrade::Forbidden(message)) => {
            return Err(ClusterError::Forbidden(vec![Forbidden {
                verb: "create".to_string(),
                resource: PODS_EXEC,
                namespace: Some(NAMESPACE.to_string()),
                message,
            }]))
        }
        Ok(Upgrade::NotFound(message)) => return Ok(Err(format!("pod {pod} is gone: {message}"))),
        Err(e @ (ClusterError::Unauthorized { .. } | ClusterError::Credentials(_))) => {
            return Err(e)
        }
        // The API server's own words, never the exec request's long URL.
        Err(ClusterError::Request { detail, .. }) => {
            return Ok(Err(format!("exec in pod {pod} refused: {detail}")))
        }
        Err(ClusterError::Timeout { after, .. }) => {
            return Ok(Err(format!(
                "no answer to the exec request into pod {pod} within {}",
                crate::duration::text(after)
            )))
        }
        Err(e) => return Ok(Err(e.to_string())),
    };
    let output = match collect(*stream).await {
        Ok(output) => output,
        Err(why) => return Ok(Err(format!("exec in pod {pod}: {why}"))),
    };
    if let Some(why) = output.failure() {
        return Ok(Err(format!("exec in pod {pod}: {why}")));
    }
    Ok(parse(&output.stdout).map_err(|why| format!("exec in pod {pod}: {why}")))
}

/// What one exec sent back, by channel.
#[derive(Debug, Default)]
struct Output {
    stdout: Vec<u8>,
    stderr: Vec<u8>,
    status: Vec<u8>,
}

/// stderr kept for a message.
const STDERR_MAX: usize = 4096;

/// The most of a node's answer (its encoded stdout) that is read: mirror
/// configuration is kilobytes; past this the node is not read.
pub const ANSWER_MAX: usize = 64 << 20;
/// The most one file of a node may hold.
pub const FILE_MAX: usize = 16 << 20;

/// Reads the stream to its end: channel 1 stdout, 2 stderr, 3 the exit
/// `Status`; 255 (a stream-close signal, `v5.channel.k8s.io`) is only a
/// signal.
async fn collect(connection: kube::client::Connection) -> Result<Output, String> {
    let mut stream = connection.into_stream();
    let mut output = Output::default();
    while let Some(message) = stream.next().await {
        let message = message.map_err(|e| format!("the stream broke: {e}"))?;
        let data = match message {
            Message::Binary(data) => data,
            Message::Close(_) => break,
            _ => continue,
        };
        let Some((&channel, payload)) = data.split_first() else {
            continue;
        };
        match channel {
            1 => {
                if output.stdout.len() + payload.len() > ANSWER_MAX {
                    return Err(format!("answer larger than {} MiB", ANSWER_MAX >> 20));
                }
                output.stdout.extend_from_slice(payload)
            }
            2 => {
                let room = STDERR_MAX.saturating_sub(output.stderr.len());
                output
                    .stderr
                    .extend_from_slice(&payload[..payload.len().min(room)]);
            }
            3 => output.status.extend_from_slice(payload),
            _ => {}
        }
    }
    Ok(output)
}

impl Output {
    /// Why the command failed, from the `Status` on channel 3: a non-zero
    /// exit (with its stderr) or the server's message.
    fn failure(&self) -> Option<String> {
        let stderr = String::from_utf8_lossy(&self.stderr).trim().to_string();
        let with_stderr = |text: String| {
            if stderr.is_empty() {
                text
            } else {
                format!("{text}: {stderr}")
            }
        };
        if self.status.is_empty() {
            return Some(with_stderr(
                "the stream ended without the command's exit status".to_string(),
            ));
        }
        let status: Value = match serde_json::from_slice(&self.status) {
            Ok(value) => value,
            Err(e) => return Some(format!("the exit status is not a Status object: {e}")),
        };
        if status.get("status").and_then(Value::as_str) == Some("Success") {
            return None;
        }
        let code = status
            .pointer("/details/causes")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .find(|c| c.get("reason").and_then(Value::as_str) == Some("ExitCode"))
            .and_then(|c| c.get("message").and_then(Value::as_str));
        Some(match code {
            Some(code) => with_stderr(format!("the read exited with code {code}")),
            None => with_stderr(
                status
                    .get("message")
                    .and_then(Value::as_str)
                    .unwrap_or("the command failed")
                    .to_string(),
            ),
        })
    }
}

/// Parses the script's output; an error says what is wrong and where.
pub fn parse(output: &[u8]) -> Result<NodeFiles, String> {
    let mut files = NodeFiles::default();
    let mut lines = output.split(|&b| b == b'\n');
    match lines.next() {
        Some(first) if first == HEADER.as_bytes() => {}
        Some(first) => {
            return Err(format!(
                "unexpected output: {:?} where \"{HEADER}\" was expected",
                text(first)
            ))
        }
        None => return Err("no output".to_string()),
    }
    let mut path: Option<String> = None;
    let mut ended = false;
    while let Some(line) = lines.next() {
        if line.is_empty() {
            continue;
        }
        if ended {
            return Err(format!("unexpected output after END: {:?}", text(line)));
        }
        if line == b"END" {
            ended = true;
            continue;
        }
        if let Some(p) = line.strip_prefix(b"P ") {
            let p = std::str::from_utf8(p)
                .ok()
                .filter(|p| is_recorded_path(p))
                .ok_or_else(|| format!("unexpected path {:?}", text(p)))?;
            path = Some(p.to_string());
            continue;
        }
        let Some(current) = path.as_deref() else {
            return Err(format!("unexpected output line {:?}", text(line)));
        };
        parse_line(&mut files, current, line, &mut lines)?;
    }
    if !ended {
        return Err("the output was cut short (no END line)".to_string());
    }
    Ok(files)
}

fn text(line: &[u8]) -> String {
    String::from_utf8_lossy(line).into_owned()
}

/// One line of the record of `path`: `S`, `L`, `F` (and the content that
/// follows), `C` or `U`.
fn parse_line<'a>(
    files: &mut NodeFiles,
    path: &str,
    line: &[u8],
    lines: &mut impl Iterator<Item = &'a [u8]>,
) -> Result<(), String> {
    let bad = || format!("{path}: unexpected line {:?}", text(line));
    let rest = |prefix: &[u8]| {
        line.strip_prefix(prefix)
            .and_then(|r| std::str::from_utf8(r).ok())
    };
    if let Some(stat) = rest(b"S ") {
        let fields: Vec<&str> = stat.split(' ').collect();
        let [mode, uid, gid] = fields[..] else {
            return Err(bad());
        };
        let meta = FileMeta {
            mode: u32::from_str_radix(mode, 16).map_err(|_| bad())?,
            uid: uid.parse().map_err(|_| bad())?,
            gid: gid.parse().map_err(|_| bad())?,
            target: None,
        };
        files.meta.insert(path.to_string(), meta);
    } else if let Some(target) = rest(b"L ") {
        let meta = files.meta.get_mut(path).ok_or_else(bad)?;
        meta.target = Some(target.to_string());
    } else if let Some(why) = rest(b"U ") {
        files.unreadable.insert(path.to_string(), why.to_string());
    } else if let Some(digest) = rest(b"C ") {
        let hex = digest.len() == 64
            && digest
                .bytes()
                .all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'));
        if !hex || !is_cert_path(path) {
            return Err(format!("unexpected certificate line {:?}", text(line)));
        }
        files.certs.insert(path.to_string(), digest.to_string());
    } else if line == b"F" {
        if !is_content_path(path) {
            return Err(format!("unexpected file {path:?}"));
        }
        let mut encoded = Vec::new();
        loop {
            match lines.next() {
                Some(b".") => break,
                Some(chunk) => encoded.extend_from_slice(chunk),
                None => return Err(format!("the output ends inside {path}")),
            }
            if encoded.len() / 4 * 3 > FILE_MAX {
                return Err(format!(
                    "{path} is larger than {} MiB (mirror configuration is kilobytes)",
                    FILE_MAX >> 20
                ));
            }
        }
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(&encoded)
            .map_err(|e| format!("{path}: the content does not decode: {e}"))?;
        files.files.insert(path.to_string(), bytes);
    } else {
        return Err(bad());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::path::Path;
    use std::process::Command;

    fn write(root: &Path, rel: &str, bytes: &[u8]) {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, bytes).unwrap();
    }

    fn run(root: &Path) -> (i32, Vec<u8>, String) {
        let out = Command::new("sh")
            .args(["-c", SCRIPT, "sh"])
            .arg(root)
            .output()
            .unwrap();
        (
            out.status.code().unwrap_or(-1),
            out.stdout,
            String::from_utf8_lossy(&out.stderr).into_owned(),
        )
    }

    /// The script reads the paths of [`crate::node_paths`], no other.
    #[test]
    fn the_script_reads_the_node_paths() {
        use crate::node_paths::{CERT_FOLDERS, FILES, FOLDERS};
        for (list, var) in [(FILES, "f"), (FOLDERS, "d"), (CERT_FOLDERS, "d")] {
            let line = format!("for {var} in {}; do", list.join(" "));
            assert!(SCRIPT.contains(&line), "{line}");
        }
        assert_eq!(SCRIPT.matches("\nfor ").count(), 3);
    }

    /// The script on a host tree, parsed back: contents byte for byte,
    /// certificates by digest, nothing else.
    #[test]
    fn script_output_parses_back() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let binary: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
        write(root, "etc/containers/registries.conf", b"[[registry]]\n");
        write(root, "etc/containers/policy.json", &binary);
        write(root, "etc/containers/registries.conf.d/.hidden.conf", b"");
        write(root, "etc/containers/registries.conf.d/99-x.conf", b"x");
        write(root, "etc/containers/registries.conf.d/sub/y.conf", b"no");
        write(root, "etc/crio/policies/ns.json", b"{}");
        write(root, "etc/docker/certs.d/m:5000/ca.crt", b"abc");
        write(root, "etc/passwd", b"root");
        fs::create_dir_all(root.join("etc/containers/registries.d")).unwrap();
        std::os::unix::fs::symlink(
            "/etc/crio/policies/ns.json",
            root.join("etc/containers/registries.d/link.yaml"),
        )
        .unwrap();
        let (code, stdout, stderr) = run(root);
        assert_eq!(code, 0, "{stderr}");
        let files = parse(&stdout).unwrap();
        assert_eq!(
            files.files.keys().map(String::as_str).collect::<Vec<_>>(),
            [
                "/etc/containers/policy.json",
                "/etc/containers/registries.conf",
                "/etc/containers/registries.conf.d/.hidden.conf",
                "/etc/containers/registries.conf.d/99-x.conf",
                "/etc/containers/registries.d/link.yaml",
                "/etc/crio/policies/ns.json",
            ]
        );
        assert_eq!(files.files["/etc/containers/policy.json"], binary);
        assert_eq!(files.files["/etc/containers/registries.d/link.yaml"], b"{}");
        let link = &files.meta["/etc/containers/registries.d/link.yaml"];
        assert_eq!(link.kind(), crate::node_files::FileKind::Link);
        assert_eq!(link.target.as_deref(), Some("/etc/crio/policies/ns.json"));
        let conf = &files.meta["/etc/containers/registries.conf"];
        assert_eq!(conf.kind(), crate::node_files::FileKind::Regular);
        assert_eq!(conf.target, None);
        assert_eq!(
            files.meta["/etc/containers/registries.conf.d/sub"].kind(),
            crate::node_files::FileKind::Folder
        );
        assert_eq!(
            files.certs["/etc/docker/certs.d/m:5000/ca.crt"],
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }

    #[test]
    fn script_without_a_host_root_fails() {
        let dir = tempfile::tempdir().unwrap();
        let (code, stdout, stderr) = run(&dir.path().join("missing"));
        assert_eq!(code, 2);
        assert!(stdout.is_empty());
        assert!(stderr.contains("no host file system"), "{stderr}");
    }

    #[test]
    fn parse_refuses_bad_output() {
        for (output, want) in [
            (&b""[..], "where \"mirrorpolicy-node-files 2\""),
            (b"hello\n", "unexpected output: \"hello\""),
            (b"mirrorpolicy-node-files 1\nEND\n", "unexpected output"),
            (b"mirrorpolicy-node-files 2\n", "cut short"),
            (
                b"mirrorpolicy-node-files 2\nP /etc/passwd\nF\n.\nEND\n",
                "unexpected path",
            ),
            (
                b"mirrorpolicy-node-files 2\nF\n.\nEND\n",
                "unexpected output line",
            ),
            (
                b"mirrorpolicy-node-files 2\nP /etc/containers/policy.json\nF\neA==\n",
                "ends inside",
            ),
            (
                b"mirrorpolicy-node-files 2\nP /etc/containers/policy.json\nF\n!!\n.\nEND\n",
                "does not decode",
            ),
            (
                b"mirrorpolicy-node-files 2\nP /etc/docker/certs.d/h/c\nC abc\nEND\n",
                "certificate",
            ),
            (
                b"mirrorpolicy-node-files 2\nP /etc/containers/policy.json\nS 81a4 0\nEND\n",
                "unexpected line",
            ),
            (
                b"mirrorpolicy-node-files 2\nP /etc/containers/policy.json\nL /x\nEND\n",
                "unexpected line",
            ),
            (
                b"mirrorpolicy-node-files 2\nP /etc/containers/registries.d\nF\n.\nEND\n",
                "unexpected file",
            ),
            (b"mirrorpolicy-node-files 2\nEND\nmore\n", "after END"),
        ] {
            let err = parse(output).unwrap_err();
            assert!(err.contains(want), "{err}");
        }
    }

    #[test]
    fn exit_status_failures() {
        let output = |status: &str, stderr: &str| Output {
            stdout: Vec::new(),
            stderr: stderr.as_bytes().to_vec(),
            status: status.as_bytes().to_vec(),
        };
        assert_eq!(output(r#"{"status":"Success"}"#, "").failure(), None);
        assert_eq!(
            output(
                r#"{"status":"Failure","reason":"NonZeroExitCode","details":{"causes":[{"reason":"ExitCode","message":"3"}]}}"#,
                "cannot read /etc/containers/policy.json\n"
            )
            .failure()
            .unwrap(),
            "the read exited with code 3: cannot read /etc/containers/policy.json"
        );
        assert_eq!(
            output(
                r#"{"status":"Failure","message":"container not found"}"#,
                ""
            )
            .failure()
            .unwrap(),
            "container not found"
        );
        assert!(output("", "").failure().unwrap().contains("without"));
    }
}
