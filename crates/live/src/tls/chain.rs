//! Go's `buildChains` for a leaf webpki will not take as an end entity (a
//! leaf marked `CA:TRUE`, as `openssl req -x509 -CA ...` makes one): the
//! issuer is looked up by subject among the roots, then among the
//! certificates the server sent, each candidate's signature over the child
//! checked with the crypto provider and the candidate checked as Go's
//! `isValid` checks a root or an intermediate.

use rustls::pki_types::{CertificateDer, SignatureVerificationAlgorithm};

use super::x509::{self, Certificate};

/// The key algorithm OIDs (tag and length included) of RSA and EC keys.
const OID_RSA: &[u8] = &[
    0x06, 0x09, 0x2a, 0x86, 0x48, 0x86, 0xf7, 0x0d, 0x01, 0x01, 0x01,
];
const OID_EC: &[u8] = &[0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02, 0x01];

/// Go's `maxChainSignatureChecks`.
const MAX_SIGNATURE_CHECKS: usize = 100;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    Root,
    Intermediate,
}

struct Builder<'a> {
    roots: Vec<Certificate<'a>>,
    intermediates: Vec<Certificate<'a>>,
    now: i64,
    algorithms: &'a [&'static dyn SignatureVerificationAlgorithm],
    signature_checks: usize,
    /// The first signature failure and the candidate it came from, Go's
    /// `hintErr` and `hintCert`.
    hint: Option<(String, String)>,
}

/// Ok when `leaf` (already checked on its own) chains to one of `roots`.
pub fn verify<'a>(
    leaf: &Certificate<'a>,
    intermediates: &'a [CertificateDer<'_>],
    roots: &'a [CertificateDer<'_>],
    now: i64,
    algorithms: &'a [&'static dyn SignatureVerificationAlgorithm],
) -> Result<(), String> {
    let mut builder = Builder {
        roots: parse_all(roots),
        intermediates: parse_all(intermediates),
        now,
        algorithms,
        signature_checks: 0,
        hint: None,
    };
    let mut chain = vec![leaf.clone()];
    builder.build(&mut chain)
}

/// The certificates Go would have in a pool: those that parse, each once,
/// in the order added (`CertPool.AddCert` skips a certificate it holds).
fn parse_all<'b>(certs: &'b [CertificateDer<'_>]) -> Vec<Certificate<'b>> {
    let mut pool: Vec<Certificate<'b>> = Vec::new();
    for c in certs {
        if pool.iter().any(|held| held.der == c.as_ref()) {
            continue;
        }
        if let Ok(parsed) = Certificate::parse(c.as_ref()) {
            pool.push(parsed);
        }
    }
    pool
}

/// The certificates of `pool` that may have issued `child`, in the order
/// Go's `CertPool.findPotentialParents` tries them: the subject names the
/// child's issuer; those whose key identifier matches the child's
/// authority key identifier first (two absent ones match), then those
/// where only one of the two is present, then the rest.
fn potential_parents<'a>(
    pool: &[Certificate<'a>],
    child: &Certificate<'_>,
) -> Vec<Certificate<'a>> {
    let rank = |c: &Certificate<'_>| {
        let (skid, akid) = (c.subject_key_id, child.authority_key_id);
        match (skid == akid, skid.is_empty(), akid.is_empty()) {
            (true, _, _) => 0,
            (false, true, false) | (false, false, true) => 1,
            _ => 2,
        }
    };
    let mut found: Vec<Certificate<'a>> = pool
        .iter()
        .filter(|c| c.subject == child.issuer)
        .cloned()
        .collect();
    // Stable: the pool's order within each rank.
    found.sort_by_key(|c| rank(c));
    found
}

/// Go's `alreadyInChain`: the same subject, key and subjectAltName as a
/// certificate of the chain.
fn already_in_chain(candidate: &Certificate<'_>, chain: &[Certificate<'_>]) -> bool {
    chain
        .iter()
        .any(|c| c.subject == candidate.subject && c.key == candidate.key && c.san == candidate.san)
}

impl<'a> Builder<'a> {
    fn build(&mut self, chain: &mut Vec<Certificate<'a>>) -> Result<(), String> {
        let mut last_error: Option<String> = None;
        let child = chain.last().cloned().ok_or("x509: empty chain")?;
        let candidates: Vec<(Role, Certificate<'a>)> = potential_parents(&self.roots, &child)
            .into_iter()
            .map(|c| (Role::Root, c))
            .chain(
                potential_parents(&self.intermediates, &child)
                    .into_iter()
                    .map(|c| (Role::Intermediate, c)),
            )
            .collect();
        for (role, candidate) in candidates {
            if already_in_chain(&candidate, chain) {
                continue;
            }
            self.signature_checks += 1;
            if self.signature_checks > MAX_SIGNATURE_CHECKS {
                return Err("x509: signature check attempts limit reached while verifying certificate chain".to_string());
            }
            if let Err(e) = self.check_signature(&child, &candidate) {
                let name = candidate.common_name.clone().unwrap_or_default();
                self.hint.get_or_insert((e, name));
                continue;
            }
            if let Err(e) = is_valid(&candidate, role, chain, self.now) {
                last_error = Some(e);
                continue;
            }
            if role == Role::Root {
                return Ok(());
            }
            chain.push(candidate);
            let found = self.build(chain);
            chain.pop();
            match found {
                Ok(()) => return Ok(()),
                Err(e) => last_error = Some(e),
            }
        }
        Err(last_error.unwrap_or_else(|| self.unknown_authority()))
    }

    fn unknown_authority(&self) -> String {
        match &self.hint {
            Some((hint, name)) => format!("x509: certificate signed by unknown authority (possibly because of {hint:?} while trying to verify candidate authority certificate {name:?})"),
            None => "x509: certificate signed by unknown authority".to_string(),
        }
    }

    /// Go's `CheckSignatureFrom`: the parent may sign (a v3 certificate
    /// needs `CA:TRUE`), and its key verifies the child's signature.
    fn check_signature(
        &self,
        child: &Certificate<'_>,
        parent: &Certificate<'_>,
    ) -> Result<(), String> {
        let may_sign = match parent.basic_constraints {
            Some((is_ca, _)) => is_ca,
            None => parent.version < 2,
        };
        if !may_sign {
            return Err(
                "x509: invalid signature: parent certificate cannot sign this kind of certificate"
                    .to_string(),
            );
        }
        let usable = self.algorithms.iter().filter(|a| {
            a.signature_alg_id().as_ref() == child.signature_algorithm
                && a.public_key_alg_id().as_ref() == parent.key_algorithm
        });
        let mut any = false;
        for algorithm in usable {
            any = true;
            if algorithm
                .verify_signature(parent.key, child.tbs, child.signature)
                .is_ok()
            {
                return Ok(());
            }
        }
        Err(if !any {
            "x509: cannot verify signature: algorithm unimplemented".to_string()
        } else if parent.key_algorithm.starts_with(OID_RSA) {
            "crypto/rsa: verification error".to_string()
        } else if parent.key_algorithm.starts_with(OID_EC) {
            "x509: ECDSA verification failure".to_string()
        } else {
            "x509: signature verification failure".to_string()
        })
    }
}

/// Go's `isValid` for a root or an intermediate appended to `chain`.
fn is_valid(
    cert: &Certificate<'_>,
    role: Role,
    chain: &[Certificate<'_>],
    now: i64,
) -> Result<(), String> {
    if cert.unhandled_critical {
        return Err("x509: unhandled critical extension".to_string());
    }
    if now < cert.not_before || now > cert.not_after {
        let (when, bound) = if now < cert.not_before {
            ("before", cert.not_before)
        } else {
            ("after", cert.not_after)
        };
        return Err(format!(
            "x509: certificate has expired or is not yet valid: current time {} is {when} {}",
            x509::rfc3339(now),
            x509::rfc3339(bound)
        ));
    }
    if !super::server_auth_allowed(cert) {
        return Err("x509: certificate specifies an incompatible key usage".to_string());
    }
    if cert.has_name_constraints {
        // Go checks every name of the chain against them; this builder
        // does not, so it does not vouch for such a chain.
        return Err(format!(
            "x509: {} has name constraints, which are not evaluated for a leaf marked CA:TRUE",
            cert.label()
        ));
    }
    if role == Role::Intermediate && !matches!(cert.basic_constraints, Some((true, _))) {
        return Err("x509: certificate is not authorized to sign other certificates".to_string());
    }
    if let Some((_, Some(max))) = cert.basic_constraints {
        let intermediates = chain.len().saturating_sub(1);
        if u64::try_from(intermediates).unwrap_or(u64::MAX) > max {
            return Err("x509: too many intermediates for path length constraint".to_string());
        }
    }
    Ok(())
}
