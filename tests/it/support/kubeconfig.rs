//! Kubeconfig files written by the live-path tests.

// Each test binary uses only some of the support code.
#![allow(dead_code)]

use std::path::{Path, PathBuf};

use base64::Engine;

use super::apiserver::FakeApiServer;

/// A kubeconfig with one context `fake` for `server`: the cluster's extra
/// lines and the user's lines (each `    key: value\n`).
pub fn kubeconfig(server: &str, cluster: &str, user: &str) -> String {
    format!(
        "apiVersion: v1\nkind: Config\nclusters:\n- name: fake\n  cluster:\n    server: {server}\n{cluster}users:\n- name: tester\n  user:\n{user}contexts:\n- name: fake\n  context:\n    cluster: fake\n    user: tester\n    namespace: default\ncurrent-context: fake\n"
    )
}

/// The cluster line that trusts `server`'s CA.
pub fn ca_line(server: &FakeApiServer) -> String {
    format!(
        "    certificate-authority-data: {}\n",
        base64::engine::general_purpose::STANDARD.encode(&server.ca_pem)
    )
}

/// Writes `text` to `dir/name`.
pub fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// Writes `dir/name`: a kubeconfig with one context (and cluster and user,
/// its token) per named server, each in `namespace`; the first current.
pub fn contexts(
    dir: &Path,
    name: &str,
    servers: &[(&str, &FakeApiServer)],
    namespace: &str,
) -> PathBuf {
    let (mut clusters, mut users, mut contexts) = (String::new(), String::new(), String::new());
    for (context, server) in servers {
        clusters.push_str(&format!(
            "- name: {context}\n  cluster:\n    server: {}\n{}",
            server.url(),
            ca_line(server)
        ));
        users.push_str(&format!(
            "- name: {context}\n  user:\n    token: {}\n",
            server.token
        ));
        contexts.push_str(&format!(
            "- name: {context}\n  context:\n    cluster: {context}\n    user: {context}\n    namespace: {namespace}\n"
        ));
    }
    let current = servers.first().map_or("", |(c, _)| c);
    write(
        dir,
        name,
        &format!("apiVersion: v1\nkind: Config\nclusters:\n{clusters}users:\n{users}contexts:\n{contexts}current-context: {current}\n"),
    )
}
