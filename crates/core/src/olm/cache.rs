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
    packages: BTreeSet<String>,
    catalog: Catalog,
}

/// The file name for the catalog of manifest `digest` read for `packages`:
/// `<digest hex>-<sha256 of the package names>.json`.
pub fn file_name(digest: &str, packages: &BTreeSet<String>) -> String {
    let hex = digest.rsplit(':').next().unwrap_or(digest);
    let names: Vec<&str> = packages.iter().map(String::as_str).collect();
    let set = sha256_hex(names.join("\n").as_bytes());
    format!("{hex}-{}.json", &set[..16])
}

/// The cache file's bytes.
pub fn encode(digest: &str, packages: &BTreeSet<String>, catalog: &Catalog) -> Vec<u8> {
    let file = CacheFile {
        format: FORMAT,
        digest: digest.to_string(),
        packages: packages.clone(),
        catalog: catalog.clone(),
    };
    serde_json::to_vec(&file).unwrap_or_default()
}

/// The catalog a cache file holds for `digest` and `packages`, or why it is no cache.
pub fn decode(bytes: &[u8], digest: &str, packages: &BTreeSet<String>) -> Result<Catalog, String> {
    let file: CacheFile = serde_json::from_slice(bytes).map_err(|e| e.to_string())?;
    if file.format != FORMAT {
        return Err(format!("format {} is not {FORMAT}", file.format));
    }
    if file.digest != digest || file.packages != *packages {
        return Err(format!(
            "it holds the catalog {} for packages {:?}",
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
        let bytes = encode("sha256:ab", &packages, &catalog);
        assert_eq!(decode(&bytes, "sha256:ab", &packages).unwrap(), catalog);
        assert!(decode(&bytes, "sha256:cd", &packages).is_err());
        let other = BTreeSet::from(["other".to_string()]);
        assert!(decode(&bytes, "sha256:ab", &other).is_err());
        assert!(decode(b"{\"format\":1,", "sha256:ab", &packages).is_err());
        assert_ne!(
            file_name("sha256:ab", &packages),
            file_name("sha256:ab", &other)
        );
        assert!(file_name("sha256:ab", &packages).starts_with("ab-"));
    }
}
