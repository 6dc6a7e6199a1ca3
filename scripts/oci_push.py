"""OCI images and sigstore attachments built in memory and pushed with the
registry's HTTP API (the distribution spec's blob upload and manifest PUT),
for the end-to-end scripts: scripts/e2e-operator-build.py and the release
and signatures of scripts/e2e-probe.sh.

Python's standard library only, but for the keys and signatures (`key`,
`sign`, `signature`), which need the `cryptography` module and import it
when called.
"""

import base64
import gzip
import hashlib
import http.client
import io
import json
import ssl
import sys
import tarfile
import urllib.parse

OCI_MANIFEST = "application/vnd.oci.image.manifest.v1+json"
OCI_CONFIG = "application/vnd.oci.image.config.v1+json"
OCI_LAYER_GZIP = "application/vnd.oci.image.layer.v1.tar+gzip"
SIMPLE_SIGNING = "application/vnd.dev.cosign.simplesigning.v1+json"

_ctx = None


def trust(cafile):
    """The CA the registries' certificates are checked against."""
    global _ctx
    _ctx = ssl.create_default_context(cafile=cafile)


def sha(b):
    return "sha256:" + hashlib.sha256(b).hexdigest()


def request(host, method, path, body=b"", headers=None):
    """One HTTPS request; the script stops with the answer when it is not a success."""
    c = http.client.HTTPSConnection(host, context=_ctx, timeout=30)
    c.request(method, path, body=body, headers=headers or {})
    r = c.getresponse()
    data = r.read()
    if r.status >= 300:
        sys.exit(f"{method} {host}{path}: {r.status} {data[:200]!r}")
    return r


def push(host, repo, ref, manifest, blobs):
    """Pushes the blobs, then the manifest under ref (a tag or its digest), to host/repo."""
    for b in blobs:
        r = request(host, "POST", f"/v2/{repo}/blobs/uploads/")
        loc = urllib.parse.urlparse(r.getheader("Location"))
        q = (loc.query + "&" if loc.query else "") + "digest=" + sha(b)
        request(host, "PUT", f"{loc.path}?{q}", b, {"Content-Type": "application/octet-stream"})
    request(host, "PUT", f"/v2/{repo}/manifests/{ref}", manifest, {"Content-Type": OCI_MANIFEST})


def tar(files):
    """A tar of (path, bytes), fixed times and owners; `None` bytes: a folder."""
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
        for name, body in files:
            i = tarfile.TarInfo(name)
            i.mtime, i.uid, i.gid = 0, 0, 0
            if body is None:
                i.type, i.mode = tarfile.DIRTYPE, 0o755
                t.addfile(i)
            else:
                i.size, i.mode = len(body), 0o644
                t.addfile(i, io.BytesIO(body))
    return raw.getvalue()


def tgz(files):
    """A gzip layer of `tar(files)`, the same bytes every time."""
    return gzip.compress(tar(files), mtime=0)


def rootfs(config, layers):
    """The image config `config` (a dict) for amd64 Linux with the diff IDs of
    the gzip `layers`, as bytes."""
    diff = [sha(gzip.decompress(l)) for l in layers]
    config.update({"architecture": "amd64", "os": "linux", "rootfs": {"type": "layers", "diff_ids": diff}})
    return json.dumps(config, sort_keys=True).encode()


def image(config, layers):
    """An OCI image: (manifest bytes, blobs) of the config bytes and gzip layers."""
    desc = lambda mt, b: {"mediaType": mt, "digest": sha(b), "size": len(b)}
    m = {"schemaVersion": 2, "mediaType": OCI_MANIFEST,
         "config": desc(OCI_CONFIG, config),
         "layers": [desc(OCI_LAYER_GZIP, l) for l in layers]}
    return json.dumps(m).encode(), [config] + layers


def key(path, kind="p256"):
    """A new private key of `kind`; its public key (PEM) written to `path`."""
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec, ed25519, rsa

    k = {"rsa": lambda: rsa.generate_private_key(public_exponent=65537, key_size=2048),
         "p256": lambda: ec.generate_private_key(ec.SECP256R1()),
         "p384": lambda: ec.generate_private_key(ec.SECP384R1()),
         "ed25519": ed25519.Ed25519PrivateKey.generate}[kind]()
    pem = k.public_key().public_bytes(serialization.Encoding.PEM,
                                      serialization.PublicFormat.SubjectPublicKeyInfo)
    with open(path, "wb") as f:
        f.write(pem)
    return k, pem


def sign(k, payload):
    """As cosign signs: RSA PKCS#1 v1.5 and ECDSA over SHA-256, Ed25519 itself."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.asymmetric import ec, padding, rsa

    if isinstance(k, rsa.RSAPrivateKey):
        return k.sign(payload, padding.PKCS1v15(), hashes.SHA256())
    if isinstance(k, ec.EllipticCurvePrivateKey):
        return k.sign(payload, ec.ECDSA(hashes.SHA256()))
    return k.sign(payload)


def signature(k, digest, identity):
    """The sigstore attachment of `digest`: an OCI manifest whose layer is
    the simple-signing payload, its signature in the
    dev.cosignproject.cosign/signature annotation, as cosign writes it;
    (manifest, blobs, the tag it goes under)."""
    payload = json.dumps({"critical": {"identity": {"docker-reference": identity},
                                       "image": {"docker-manifest-digest": digest},
                                       "type": "cosign container image signature"},
                          "optional": None}).encode()
    sig = base64.b64encode(sign(k, payload)).decode()
    config = b"{}"
    m = {"schemaVersion": 2, "mediaType": OCI_MANIFEST,
         "config": {"mediaType": OCI_CONFIG, "digest": sha(config), "size": len(config)},
         "layers": [{"mediaType": SIMPLE_SIGNING, "digest": sha(payload), "size": len(payload),
                     "annotations": {"dev.cosignproject.cosign/signature": sig}}]}
    return json.dumps(m).encode(), [config, payload], digest.replace(":", "-", 1) + ".sig"
