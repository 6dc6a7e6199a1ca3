//! Offline input: exported objects in YAML or JSON files, folders, stdin.
//!
//! A file holds one or more documents (YAML `---` streams, or JSON values
//! one after another). A document is an object, or a `List` / `*List` whose
//! `items` are objects; items without `kind` take it from the list kind.
//! Documents of other kinds are counted, not read. A document of one of the
//! tool's kinds that does not fit its type is an error naming the file, the
//! 1-based document, its first line, the object and the field.
//!
//! YAML is read as Kubernetes tooling reads it in the places that matter
//! here: `0644` is octal (420, Ignition file modes), and only
//! `true`/`false` are booleans (`yes`, `on` stay strings).
//!
//! Folders are walked recursively in sorted order, reading `.yaml`, `.yml`
//! and `.json` files; a must-gather or `oc adm inspect` tree is just such a
//! folder (`cluster-scoped-resources/<group>/<resource>/<name>.yaml`,
//! `namespaces/<ns>/<group>/<resource>/<name>.yaml` and aggregated
//! `<resource>.yaml` lists), so an object can be found twice; it is kept
//! once. Files inside folders whose text names none of the tool's kinds
//! (nor starts a line with a key install-config.yaml is read for) are not
//! parsed (must-gathers hold thousands of them).

use std::fs;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use regex::bytes::Regex as BytesRegex;

use crate::decode::{apply, config_maps_in, stage_file, Reading, SourceError, Staged};
use crate::objects::crd_schema::CrdSchema;
use crate::objects::Inputs;
use serde_json::Value;

/// Name used for stdin in messages.
const STDIN_NAME: &str = "<stdin>";

/// Reads every path in order (`-` is stdin) into one [`Inputs`].
///
/// Folders are walked recursively in sorted order; inside them only
/// `.yaml`, `.yml` and `.json` files are read, and only those whose text
/// names one of the tool's kinds. A file named explicitly is always read,
/// whatever its extension.
pub fn load_paths(paths: &[PathBuf], stdin: impl Read) -> Result<Inputs, SourceError> {
    load_paths_with(paths, stdin, false, false)
}

/// The most one input (a file, stdin) may hold: 256 MiB. More is refused
/// rather than read into memory; an endless input (`/dev/zero`, a pipe that
/// never ends) stops here.
pub const MAX_INPUT_BYTES: u64 = 256 * 1024 * 1024;

/// One input to read, in the order given.
enum Job {
    /// Stdin, already read.
    Text(Vec<u8>),
    /// A file named on the command line (read whatever its extension).
    Named(PathBuf),
    /// A file found in a folder: read only if it names a kind.
    InFolder(PathBuf),
    /// Something that failed where it was met (a folder that cannot be read).
    Fail(SourceError),
    /// A warning about an entry of a folder.
    Warn(String),
}

/// The files oc-mirror v2 names in `working-dir/cluster-resources/`
/// (`idms-oc-mirror.yaml`, `itms-oc-mirror.yaml`), by which that folder is
/// known.
const OC_MIRROR_SETS: [&str; 2] = ["idms-oc-mirror.yaml", "itms-oc-mirror.yaml"];

impl Job {
    /// Whether this input is in oc-mirror's cluster-resources folder: a
    /// file named on the command line whose folder holds one of
    /// [`OC_MIRROR_SETS`], or one of them found walking a folder. Never
    /// standard input.
    fn in_oc_mirror_resources(&self) -> bool {
        match self {
            Job::Named(file) => {
                let folder = match file.parent() {
                    Some(p) if p.as_os_str().is_empty() => Path::new("."),
                    Some(p) => p,
                    None => return false,
                };
                OC_MIRROR_SETS.iter().any(|n| folder.join(n).is_file())
            }
            Job::InFolder(file) => file
                .file_name()
                .is_some_and(|n| OC_MIRROR_SETS.iter().any(|set| n == *set)),
            Job::Text(_) | Job::Fail(_) | Job::Warn(_) => false,
        }
    }
}

/// What reading one [`Job`] gave.
enum Done<'a> {
    Staged(Staged<'a>),
    /// A file in a folder naming none of the kinds read.
    NotHinted,
    Warn(String),
}

/// [`load_paths`], also reading the objects that reference images
/// (`Inputs::workloads`) when `workloads` is set.
///
/// Files are read and parsed in parallel (one thread per core) and added
/// in order, so the result, and the error reported first, are those of
/// reading them one after another.
///
/// With `strict`, every object of the kinds `lint` checks is also checked
/// field by field against its CRD, as kubectl's `--validate=strict` does
/// ([`Inputs::refused`]); reading is slower on very large files. The
/// CustomResourceDefinitions among the files (a must-gather's) are the
/// schemas their kinds are checked against.
pub fn load_paths_with(
    paths: &[PathBuf],
    stdin: impl Read,
    workloads: bool,
    strict: bool,
) -> Result<Inputs, SourceError> {
    let mut inputs = load_unchecked(paths, stdin, workloads, strict)?;
    inputs.check_fields(&[]);
    Ok(inputs)
}

/// [`load_paths_with`], strict, checking fields against the first of
/// `crds` for each kind (then the CRDs among the files, then the tool's
/// own field trees).
pub fn load_paths_checked(
    paths: &[PathBuf],
    stdin: impl Read,
    workloads: bool,
    crds: &[CrdSchema],
) -> Result<Inputs, SourceError> {
    let mut inputs = load_unchecked(paths, stdin, workloads, true)?;
    inputs.check_fields(crds);
    Ok(inputs)
}

fn load_unchecked(
    paths: &[PathBuf],
    stdin: impl Read,
    workloads: bool,
    strict: bool,
) -> Result<Inputs, SourceError> {
    let reading = Reading {
        workloads,
        strict,
        listed: false,
        threads: 1,
    };
    let mut stdin = Some(stdin);
    let mut jobs = Vec::new();
    for path in paths {
        if path.as_os_str() == "-" {
            let job = match stdin.take() {
                Some(reader) => read_capped(reader, STDIN_NAME).map_or_else(Job::Fail, Job::Text),
                None => Job::Fail(SourceError::StdinTwice),
            };
            jobs.push(job);
            continue;
        }
        match fs::metadata(path) {
            Ok(meta) if meta.is_dir() => {
                let mut files = Vec::new();
                if let Err(e) = collect_files(path, &mut files, &mut Vec::new()) {
                    jobs.push(Job::Fail(e));
                }
                jobs.extend(files.into_iter().map(|entry| match entry {
                    Entry::File(file) => Job::InFolder(file),
                    Entry::NotRegular(file) => Job::Warn(format!(
                        "{}: not a regular file (a pipe, socket or device); skipped",
                        file.display()
                    )),
                }));
            }
            Ok(_) => jobs.push(Job::Named(path.clone())),
            Err(source) => jobs.push(Job::Fail(SourceError::Read {
                path: path.display().to_string(),
                source,
            })),
        }
    }
    let oc_mirror_resources = jobs.iter().any(Job::in_oc_mirror_resources);
    let names: Vec<String> = jobs
        .iter()
        .map(|job| match job {
            Job::Named(p) | Job::InFolder(p) => p.display().to_string(),
            _ => STDIN_NAME.to_string(),
        })
        .collect();
    let mut inputs = Inputs::default();
    inputs.oc_mirror_resources = oc_mirror_resources;
    for done in run_jobs(jobs, &names, reading) {
        match done? {
            Done::Staged(staged) => apply(staged, &mut inputs),
            Done::NotHinted => inputs.skipped_files += 1,
            Done::Warn(w) => inputs.warnings.push(w),
        }
    }
    Ok(inputs)
}

/// Runs every job, in parallel, and returns the results in job order, up
/// to the first error.
fn run_jobs<'a>(
    jobs: Vec<Job>,
    names: &'a [String],
    reading: Reading,
) -> Vec<Result<Done<'a>, SourceError>> {
    use std::sync::Mutex;

    let count = jobs.len();
    let cores = crate::parallel::cores();
    let threads = cores.min(count);
    // One input: its documents are parsed on every core instead.
    let reading = if threads <= 1 {
        Reading {
            threads: cores,
            ..reading
        }
    } else {
        reading
    };
    let jobs: Vec<Mutex<Option<Job>>> = jobs.into_iter().map(|j| Mutex::new(Some(j))).collect();
    let run = |i: usize| -> Result<Done<'a>, SourceError> {
        // Each job is taken once, by the thread that claimed its index.
        let job = jobs[i].lock().map_or(None, |mut j| j.take());
        run_job(job, names[i].as_str(), reading)
    };
    crate::parallel::map_until(count, threads, run, Result::is_err)
}

/// Runs one job on the input called `name`: reads and stages it (a file
/// found in a folder only when it looks like it holds an object of
/// interest), or passes on its failure or warning.
fn run_job(job: Option<Job>, name: &str, reading: Reading) -> Result<Done<'_>, SourceError> {
    match job {
        Some(Job::Text(bytes)) => {
            let text = into_text(bytes, name)?;
            stage_file(name, &text, reading).map(Done::Staged)
        }
        Some(Job::Named(path)) => {
            let text = into_text(read_input(&path, name)?, name)?;
            stage_file(name, &text, reading).map(Done::Staged)
        }
        Some(Job::InFolder(path)) => {
            let bytes = read_input(&path, name)?;
            let hinted = KIND_HINT.is_match(&bytes)
                || INSTALL_CONFIG_HINT.is_match(&bytes)
                || (reading.workloads && WORKLOAD_HINT.is_match(&bytes))
                || (reading.strict && STRICT_HINT.is_match(&bytes));
            if !hinted {
                return Ok(Done::NotHinted);
            }
            let text = into_text(bytes, name)?;
            stage_file(name, &text, reading).map(Done::Staged)
        }
        Some(Job::Fail(e)) => Err(e),
        Some(Job::Warn(w)) => Ok(Done::Warn(w)),
        None => Ok(Done::NotHinted),
    }
}

/// Reads a file named or found, refusing more than [`MAX_INPUT_BYTES`].
/// A pipe is opened without waiting for a writer (none: it is empty).
fn read_input(path: &Path, display: &str) -> Result<Vec<u8>, SourceError> {
    let read_err = |source| SourceError::Read {
        path: display.to_string(),
        source,
    };
    let file = open_input(path).map_err(read_err)?;
    let meta = file.metadata().map_err(read_err)?;
    if meta.is_file() && meta.len() > MAX_INPUT_BYTES {
        return Err(SourceError::TooLarge {
            path: display.to_string(),
        });
    }
    read_capped(file, display)
}

#[cfg(unix)]
fn open_input(path: &Path) -> std::io::Result<fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    use std::os::unix::io::AsRawFd;
    // Opening a FIFO for reading waits for a writer; non-blocking, it does
    // not. Reads then block again, until data or the end.
    let file = fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    // SAFETY: fcntl on a descriptor this function owns, with integer flags.
    let flags = unsafe { libc::fcntl(file.as_raw_fd(), libc::F_GETFL) };
    if flags >= 0 {
        // SAFETY: as above.
        unsafe { libc::fcntl(file.as_raw_fd(), libc::F_SETFL, flags & !libc::O_NONBLOCK) };
    }
    Ok(file)
}

#[cfg(not(unix))]
fn open_input(path: &Path) -> std::io::Result<fs::File> {
    fs::File::open(path)
}

/// Reads at most [`MAX_INPUT_BYTES`]; more is an error naming the input.
fn read_capped(reader: impl Read, display: &str) -> Result<Vec<u8>, SourceError> {
    let mut bytes = Vec::new();
    reader
        .take(MAX_INPUT_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(|source| SourceError::Read {
            path: display.to_string(),
            source,
        })?;
    if bytes.len() as u64 > MAX_INPUT_BYTES {
        return Err(SourceError::TooLarge {
            path: display.to_string(),
        });
    }
    Ok(bytes)
}

fn into_text(bytes: Vec<u8>, display: &str) -> Result<String, SourceError> {
    String::from_utf8(bytes).map_err(|_| SourceError::NotUtf8 {
        path: display.to_string(),
    })
}

/// Depth-first, sorted by name at each level; follows symbolic links but
/// visits each real folder once.
/// A folder entry that may be an input.
enum Entry {
    /// A regular file with a manifest extension.
    File(PathBuf),
    /// A pipe, socket or device with a manifest extension: never read.
    NotRegular(PathBuf),
}

fn collect_files(
    dir: &Path,
    files: &mut Vec<Entry>,
    visited: &mut Vec<PathBuf>,
) -> Result<(), SourceError> {
    let read_err = |source| SourceError::Read {
        path: dir.display().to_string(),
        source,
    };
    let real = fs::canonicalize(dir).map_err(read_err)?;
    if visited.contains(&real) {
        return Ok(());
    }
    visited.push(real);
    let mut entries: Vec<PathBuf> = fs::read_dir(dir)
        .map_err(read_err)?
        .map(|entry| entry.map(|e| e.path()))
        .collect::<Result<_, _>>()
        .map_err(read_err)?;
    entries.sort();
    for entry in entries {
        // A dangling link or an unreadable entry is not an input; skip it.
        let Ok(meta) = fs::metadata(&entry) else {
            continue;
        };
        if meta.is_dir() {
            collect_files(&entry, files, visited)?;
        } else if has_manifest_extension(&entry) {
            files.push(if meta.is_file() {
                Entry::File(entry)
            } else {
                Entry::NotRegular(entry)
            });
        }
    }
    Ok(())
}

fn has_manifest_extension(path: &Path) -> bool {
    path.extension().and_then(|e| e.to_str()).is_some_and(|e| {
        ["yaml", "yml", "json"]
            .iter()
            .any(|x| e.eq_ignore_ascii_case(x))
    })
}

/// Escapes a YAML double-quoted scalar (or JSON string) can spell a letter
/// with, and the escaped line break that joins two lines: with one of them,
/// a kind can be written without its name appearing in the text.
const ESCAPES: &str = r"\\[xuU\r\n]";

/// Whether a file may hold one of the tool's kinds: a kind's name (or its
/// list's) as a whole word anywhere, in any YAML style, or an escape that
/// could spell one. Files without are not parsed; this may only ever say
/// yes too often.
static KIND_HINT: LazyLock<BytesRegex> = LazyLock::new(|| {
    let kinds = "ImageContentSourcePolicy|ImageDigestMirrorSet|ImageTagMirrorSet|Image|ClusterVersion|ClusterImagePolicy|ImagePolicy|MachineConfig|MachineConfigPool|Node";
    BytesRegex::new(&format!(r"(?-u:\b)(?:{kinds})(?:List)?(?-u:\b)|{ESCAPES}"))
        // A constant pattern; every test that loads a folder compiles it.
        .expect("kind hint regex compiles")
});

/// Starts a line with a key install-config.yaml is read for (it has no
/// `kind`): the installer's input folder holds it beside other files.
static INSTALL_CONFIG_HINT: LazyLock<BytesRegex> = LazyLock::new(|| {
    BytesRegex::new(
        r"(?m)^(?:imageContentSources|imageDigestSources|additionalTrustBundle|pullSecret)[ \t]*:",
    )
    // A constant pattern.
    .expect("install-config hint regex compiles")
});

/// Names a kind checked only when reading strictly (`lint`), or its CRD.
static STRICT_HINT: LazyLock<BytesRegex> = LazyLock::new(|| {
    BytesRegex::new(&format!(
        r"(?-u:\b)ContainerRuntimeConfig(?:List)?(?-u:\b)|{ESCAPES}"
    ))
    // A constant pattern.
    .expect("strict hint regex compiles")
});

/// Names a workload kind: files without one are not parsed for `audit`.
static WORKLOAD_HINT: LazyLock<BytesRegex> = LazyLock::new(|| {
    let kinds = crate::objects::workload::WORKLOAD_KINDS
        .iter()
        .map(|k| k.kind)
        .collect::<Vec<_>>()
        .join("|");
    BytesRegex::new(&format!(r"(?-u:\b)(?:{kinds})(?:List)?(?-u:\b)|{ESCAPES}"))
        // Built from constant names; every test that loads a folder compiles it.
        .expect("workload hint regex compiles")
});

/// Every ConfigMap of one of `namespaces` in the files and folders of
/// `paths` (stdin, `-`, is not read again), as `(where it was read,
/// object)`. Folders are walked as [`load_paths`] walks them; only files
/// whose text names `ConfigMap` and one of the namespaces are parsed, and
/// the items of a list count.
pub fn config_maps(
    paths: &[PathBuf],
    namespaces: &[&str],
) -> Result<Vec<(String, Value)>, SourceError> {
    let mut maps = Vec::new();
    for file in listed_files(paths)? {
        let name = file.display().to_string();
        let Ok(text) = into_text(read_input(&file, &name)?, &name) else {
            continue;
        };
        maps.extend(config_maps_in(&name, &text, namespaces)?);
    }
    Ok(maps)
}

/// Every object of one of `kinds` in the files and folders of `paths`
/// (stdin, `-`, is not read again), as `(where it was read, object)`;
/// folders are walked as [`load_paths`] walks them.
pub fn objects(paths: &[PathBuf], kinds: &[&str]) -> Result<Vec<(String, Value)>, SourceError> {
    let mut found = Vec::new();
    for file in listed_files(paths)? {
        let name = file.display().to_string();
        let Ok(text) = into_text(read_input(&file, &name)?, &name) else {
            continue;
        };
        found.extend(crate::decode::objects_in(&name, &text, kinds)?);
    }
    Ok(found)
}

/// The regular files of `paths` (folders walked), stdin left out.
fn listed_files(paths: &[PathBuf]) -> Result<Vec<PathBuf>, SourceError> {
    let mut files = Vec::new();
    for path in paths.iter().filter(|p| p.as_os_str() != "-") {
        let meta = fs::metadata(path).map_err(|source| SourceError::Read {
            path: path.display().to_string(),
            source,
        })?;
        if meta.is_dir() {
            let mut found = Vec::new();
            collect_files(path, &mut found, &mut Vec::new())?;
            files.extend(found.into_iter().filter_map(|e| match e {
                Entry::File(f) => Some(f),
                Entry::NotRegular(_) => None,
            }));
        } else {
            files.push(path.clone());
        }
    }
    Ok(files)
}

#[cfg(test)]
mod tests {
    use super::*;

    const IDMS: &str = "apiVersion: config.openshift.io/v1\nkind: ImageDigestMirrorSet\nmetadata:\n  name: a\nspec:\n  imageDigestMirrors:\n  - source: quay.io/x\n    mirrors: [m.io/x]\n";

    fn fixture(path: &str) -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures")
            .join(path)
    }

    #[test]
    fn must_gather_folder_loads_as_is() {
        let inputs = load_paths(&[fixture("must-gather")], std::io::empty()).unwrap();
        let counts = [
            inputs.icsps.len(),
            inputs.idmss.len(),
            inputs.itmss.len(),
            usize::from(inputs.image.is_some()),
            usize::from(inputs.cluster_version.is_some()),
            inputs.cluster_image_policies.len(),
            inputs.image_policies.len(),
            inputs.machine_configs.len(),
            inputs.pools.len(),
            inputs.nodes.len(),
        ];
        assert_eq!(counts, [1, 1, 0, 1, 1, 1, 1, 6, 1, 1]);
        assert_eq!(
            inputs.skipped.iter().collect::<Vec<_>>(),
            [(&"v1/Event".to_string(), &1)]
        );
        assert!(inputs.warnings.is_empty() && inputs.refused.is_empty());
        // configmaps.yaml names none of the kinds; logs and `timestamp` are not manifests.
        assert_eq!(inputs.skipped_files, 1);
        let image = inputs.image.as_ref().unwrap();
        assert_eq!(
            image.spec.registry_sources.insecure_registries,
            Some(vec![])
        );
        assert_eq!(image.spec.registry_sources.allowed_registries, None);
        assert_eq!(
            inputs.cluster_version.as_ref().unwrap().version(),
            Some("4.19.3")
        );
        assert_eq!(
            inputs.image_policies[0].origin().as_str(),
            "ImagePolicy/team-a/signed-apps"
        );
        assert_eq!(inputs.nodes[0].state(), Some("Done"));
        assert!(inputs.validate().is_empty(), "{:?}", inputs.validate());
    }

    #[test]
    fn paths_stdin_and_extensions() {
        let dir = tempfile::tempdir().unwrap();
        let sub = dir.path().join("b-sub");
        fs::create_dir(&sub).unwrap();
        fs::write(dir.path().join("z.yml"), IDMS.replace("name: a", "name: z")).unwrap();
        fs::write(
            dir.path().join("a.JSON"),
            r#"{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}"#,
        )
        .unwrap();
        fs::write(sub.join("m.yaml"), IDMS.replace("name: a", "name: m")).unwrap();
        fs::write(dir.path().join("notes.txt"), IDMS).unwrap();
        fs::write(
            dir.path().join("idms.yaml.example"),
            IDMS.replace("name: a", "name: example"),
        )
        .unwrap();

        let inputs = load_paths(
            &[
                dir.path().to_path_buf(),
                PathBuf::from("-"),
                dir.path().join("idms.yaml.example"),
            ],
            IDMS.replace("name: a", "name: from-stdin").as_bytes(),
        )
        .unwrap();
        let names: Vec<&str> = inputs
            .idmss
            .iter()
            .map(|o| o.metadata.name.as_str())
            .collect();
        // Sorted walk: a.JSON, b-sub/m.yaml, z.yml; then stdin; then the named file.
        assert_eq!(names, ["m", "z", "from-stdin", "example"]);
        assert_eq!(inputs.nodes.len(), 1);

        let twice = load_paths(&[PathBuf::from("-"), PathBuf::from("-")], std::io::empty());
        assert_eq!(
            twice.unwrap_err().to_string(),
            "stdin (\"-\") can be read only once"
        );

        let missing = dir.path().join("missing.yaml");
        let err = load_paths(std::slice::from_ref(&missing), std::io::empty()).unwrap_err();
        assert!(
            err.to_string()
                .starts_with(&format!("cannot read \"{}\": ", missing.display())),
            "{err}"
        );

        fs::write(dir.path().join("bad.yaml"), [0xff, 0xfe, b'k']).unwrap();
        let err = load_paths(&[dir.path().join("bad.yaml")], std::io::empty()).unwrap_err();
        assert!(
            err.to_string().ends_with("bad.yaml\" is not UTF-8 text"),
            "{err}"
        );
    }

    #[cfg(unix)]
    #[test]
    fn symlinked_folder_loops_are_walked_once() {
        let dir = tempfile::tempdir().unwrap();
        fs::write(dir.path().join("a.yaml"), IDMS).unwrap();
        std::os::unix::fs::symlink(dir.path(), dir.path().join("loop")).unwrap();
        let inputs = load_paths(&[dir.path().to_path_buf()], std::io::empty()).unwrap();
        assert_eq!(inputs.idmss.len(), 1);
        assert!(inputs.warnings.is_empty());
    }

    #[test]
    fn kind_hint_finds_top_level_and_item_kinds() {
        for (text, want) in [
            ("kind: ImageDigestMirrorSet\n", true),
            ("apiVersion: v1\nkind: 'Node'  # a node\n", true),
            ("items:\n- apiVersion: v1\n  kind: MachineConfig\n", true),
            ("items:\n  - kind: MachineConfigPoolList\n", true),
            (r#"{"items":[{"kind" : "ImagePolicy"}]}"#, true),
            // The name alone is enough: which style holds it is the parser's call.
            ("kind: ConfigMap\ndata:\n  x: |\n      kind: Node\n", true),
            ("{apiVersion: v1, kind: Node, metadata: {name: n}}", true),
            ("{\"kind\":\"ImageDigestMirrorSet\"}", true),
            ("kind: \"\\x49mage\"\n", true),
            ("kind: \"Image\\\n  DigestMirrorSet\"\n", true),
            ("kind: NodeFeature\n", false),
            ("kind: Images\n", false),
            (
                "kind: ConfigMap\ndata: {note: \"a \\\"quoted\\\" word\"}\n",
                false,
            ),
        ] {
            assert_eq!(KIND_HINT.is_match(text.as_bytes()), want, "{text:?}");
        }
    }
}
