//! The cache of parsed catalogs (`operator-check --cache-dir`): one file
//! per catalog manifest digest and set of packages asked for, holding what
//! was read for them (with the packages read for their dependencies), so a
//! catalog whose digest has not changed is not read again. A file that does
//! not decode, or that names another digest or package set, is no cache.
//! A catalog opm cannot serve is cached with its refusal.
//!
//! The files are the caller's to read and write; the name and the format
//! are here.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use super::catalog::Catalog;
use crate::digest::sha256_hex;

/// The format of the cache files; a file of another format is not read.
/// Format 3 holds whether opm serves the catalog ([`Catalog::refused`]):
/// a file of an earlier one may hold a refused catalog as a served one.
const FORMAT: u32 = 3;

#[derive(Serialize, Deserialize)]
struct CacheFile {
    format: u32,
    digest: String,
    /// The architecture read, when the digest is an index's.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    arch: Option<String>,
    packages: BTreeSet<String>,
    catalog: Catalog,
}

/// What a cached catalog was read for: the catalog image's manifest
/// `digest`; when that manifest is an index (a manifest list), the `arch`
/// whose instance was read, as the instances of one index may hold other
/// catalogs; and the `packages` asked for.
#[derive(Debug, Clone, Copy)]
pub struct Key<'a> {
    pub digest: &'a str,
    pub arch: Option<&'a str>,
    pub packages: &'a BTreeSet<String>,
}

/// The file name for the catalog of `key`: `<digest hex>-<sha256 of the
/// package names, and the architecture when there is one>.json`.
pub fn file_name(key: Key) -> String {
    let hex = key.digest.rsplit(':').next().unwrap_or(key.digest);
    let names: Vec<&str> = key.packages.iter().map(String::as_str).collect();
    let mut read_for = names.join("\n");
    if let Some(arch) = key.arch {
        read_for = format!("arch {arch}\n{read_for}");
    }
    let set = sha256_hex(read_for.as_bytes());
    format!("{hex}-{}.json", &set[..16])
}

/// The most of a cache file read: the packages kept from a catalog, which
/// a catalog file itself may hold at most ([`super::fs::MAX_FILE_BYTES`]).
pub const MAX_BYTES: u64 = super::fs::MAX_FILE_BYTES;

/// A cache file's bytes from `reader`, at most [`MAX_BYTES`]: `None` when it
/// holds more, more than a cache this tool writes.
pub fn read_capped(reader: impl std::io::Read) -> std::io::Result<Option<Vec<u8>>> {
    use std::io::Read;
    let mut bytes = Vec::new();
    reader.take(MAX_BYTES + 1).read_to_end(&mut bytes)?;
    Ok((bytes.len() as u64 <= MAX_BYTES).then_some(bytes))
}

/// The cache file's bytes.
pub fn encode(key: Key, catalog: &Catalog) -> Vec<u8> {
    let file = CacheFile {
        format: FORMAT,
        digest: key.digest.to_string(),
        arch: key.arch.map(str::to_string),
        packages: key.packages.clone(),
        catalog: catalog.clone(),
    };
    serde_json::to_vec(&file).unwrap_or_default()
}

/// The catalog a cache file holds for `key`, or why it is no cache.
pub fn decode(bytes: &[u8], key: Key) -> Result<Catalog, String> {
    let file: CacheFile = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    if file.format != FORMAT {
        return Err(format!("format {} is not {FORMAT}", file.format));
    }
    if file.digest != key.digest
        || file.arch.as_deref() != key.arch
        || file.packages != *key.packages
    {
        let arch = file.arch.map(|a| format!(" ({a})")).unwrap_or_default();
        return Err(format!(
            "it holds the catalog {}{arch} for packages {:?}",
            file.digest, file.packages
        ));
    }
    Ok(file.catalog)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::olm::catalog::read_file;

    #[test]
    fn round_trip_and_refusals() {
        let text = r#"{"schema":"olm.package","name":"etcd","defaultChannel":"stable"}
{"schema":"olm.channel","package":"etcd","name":"stable","entries":[{"name":"etcd.v1","skipRange":"<1.0.0"}]}
{"schema":"olm.bundle","name":"etcd.v1","package":"etcd","image":"q.io/b@sha256:1","properties":[{"type":"olm.package","value":{"packageName":"etcd","version":"1.0.0"}},{"type":"olm.csv.metadata","value":{}}]}
"#;
        let catalog = Catalog::assemble([read_file("c.json", text, &|_| true).unwrap()]);
        let packages = BTreeSet::from(["etcd".to_string()]);
        let key = |digest, arch, packages| Key {
            digest,
            arch,
            packages,
        };
        let bytes = encode(key("sha256:ab", None, &packages), &catalog);
        assert_eq!(
            decode(&bytes, key("sha256:ab", None, &packages)).unwrap(),
            catalog
        );
        assert!(decode(&bytes, key("sha256:cd", None, &packages)).is_err());
        let other = BTreeSet::from(["other".to_string()]);
        assert!(decode(&bytes, key("sha256:ab", None, &other)).is_err());
        assert!(decode(b"{\"format\":1,", key("sha256:ab", None, &packages)).is_err());
        assert_ne!(
            file_name(key("sha256:ab", None, &packages)),
            file_name(key("sha256:ab", None, &other))
        );
        assert!(file_name(key("sha256:ab", None, &packages)).starts_with("ab-"));
        // Issue 38: an index's instances are read per architecture, and
        // cached so: one architecture's catalog is never another's.
        let arm = key("sha256:ab", Some("arm64"), &packages);
        let amd = key("sha256:ab", Some("amd64"), &packages);
        assert_ne!(file_name(arm), file_name(amd));
        assert_ne!(file_name(arm), file_name(key("sha256:ab", None, &packages)));
        let bytes = encode(amd, &catalog);
        assert_eq!(decode(&bytes, amd).unwrap(), catalog);
        assert_eq!(
            decode(&bytes, arm).unwrap_err(),
            "it holds the catalog sha256:ab (amd64) for packages {\"etcd\"}"
        );
    }
}
