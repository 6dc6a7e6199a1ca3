#!/usr/bin/env python3
"""Release packaging: krew archives and the filled-in krew manifest.

    # one archive per platform, from a binary built for it
    python3 scripts/release.py package --bin target/x86_64-unknown-linux-musl/release/kubectl-mirrorpolicy \
        --os linux --arch amd64 --version v0.1.0 --out dist/

    # the manifest for krew-index, with each archive's uri and sha256
    python3 scripts/release.py manifest --version v0.1.0 --dir dist/ > mirrorpolicy.yaml

    # the platforms released, one `os/arch` per line
    python3 scripts/release.py platforms

krew wants .tar.gz (or .zip for Windows) archives with the LICENSE inside;
`krew/mirrorpolicy.yaml` is the template (krew-release-bot syntax), so the
same file also works with the bot on a GitHub release.
"""

import argparse
import gzip
import hashlib
import io
import os
import re
import sys
import tarfile
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
NAME = "kubectl-mirrorpolicy"
PLATFORMS = [(o, a) for o in ("linux", "darwin", "windows") for a in ("amd64", "arm64")]
# Files shipped beside the binary (paths inside the repository).
EXTRA = [
    "LICENSE",
    "README.md",
    "completions/kubectl_complete-mirrorpolicy",
    "completions/oc_complete-mirrorpolicy",
]
# The manual the README links to, shipped so that its links resolve inside an archive.
DOCS = "docs"
# A fixed time for every archive member: the same inputs give the same archive.
EPOCH = 1_700_000_000


def archive_name(version, os_name, arch):
    ext = "zip" if os_name == "windows" else "tar.gz"
    return f"{NAME}_{version}_{os_name}_{arch}.{ext}"


def members(binary, os_name):
    exe = NAME + (".exe" if os_name == "windows" else "")
    yield exe, binary, 0o755
    docs = sorted(
        f"{DOCS}/{n}" for n in os.listdir(os.path.join(ROOT, DOCS)) if n.endswith(".md")
    )
    for rel in EXTRA + docs:
        mode = 0o755 if rel.startswith("completions/") else 0o644
        yield rel, os.path.join(ROOT, rel), mode


def package(args):
    if (args.os, args.arch) not in PLATFORMS:
        sys.exit(f"error: unknown platform {args.os}/{args.arch}")
    if not os.path.isfile(args.bin):
        sys.exit(f"error: binary {args.bin} does not exist")
    os.makedirs(args.out, exist_ok=True)
    path = os.path.join(args.out, archive_name(args.version, args.os, args.arch))
    tmp = path + ".tmp"
    if args.os == "windows":
        with zipfile.ZipFile(tmp, "w", zipfile.ZIP_DEFLATED) as z:
            for name, src, mode in members(args.bin, args.os):
                info = zipfile.ZipInfo(name, date_time=(2023, 11, 14, 22, 13, 20))
                info.external_attr = (0o100000 | mode) << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(src, "rb") as f:
                    z.writestr(info, f.read())
    else:
        raw = io.BytesIO()
        with tarfile.open(fileobj=raw, mode="w", format=tarfile.PAX_FORMAT) as t:
            for name, src, mode in members(args.bin, args.os):
                info = t.gettarinfo(src, arcname=name)
                info.mode, info.mtime = mode, EPOCH
                info.uid = info.gid = 0
                info.uname = info.gname = ""
                with open(src, "rb") as f:
                    t.addfile(info, f)
        with open(tmp, "wb") as out:
            with gzip.GzipFile(fileobj=out, mode="wb", mtime=EPOCH, filename="") as gz:
                gz.write(raw.getvalue())
    os.replace(tmp, path)
    print(path)


def sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


ADD = re.compile(r'^(\s*)\{\{\s*addURIAndSha\s+"([^"]+)"\s+\.TagName\s*\}\}\s*$')


def manifest(args):
    with open(args.template, encoding="utf-8") as f:
        lines = f.read().splitlines()
    out = []
    for line in lines:
        m = ADD.match(line)
        if m:
            indent, uri = m.group(1), m.group(2).replace("{{ .TagName }}", args.version)
            archive = os.path.join(args.dir, uri.rsplit("/", 1)[1])
            if not os.path.isfile(archive):
                sys.exit(f"error: {archive} is missing: package every platform first")
            out.append(f"{indent}uri: {uri}")
            out.append(f"{indent}sha256: {sha256(archive)}")
            continue
        if line.lstrip().startswith("#"):
            continue
        if "{{" in line:
            line = line.replace("{{ .TagName }}", args.version)
            if "{{" in line:
                sys.exit(f"error: unknown template expression in: {line.strip()}")
        out.append(line)
    sys.stdout.write("\n".join(out) + "\n")


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    k = sub.add_parser("package", help="archive one platform's binary with LICENSE, README and completion scripts")
    k.add_argument("--bin", required=True)
    k.add_argument("--os", required=True)
    k.add_argument("--arch", required=True)
    k.add_argument("--version", required=True)
    k.add_argument("--out", required=True)
    m = sub.add_parser("manifest", help="fill the krew manifest template from the archives")
    m.add_argument("--version", required=True)
    m.add_argument("--dir", required=True)
    m.add_argument("--template", default=os.path.join(ROOT, "krew", "mirrorpolicy.yaml"))
    sub.add_parser("platforms", help="print the platforms released, one os/arch per line")
    args = p.parse_args()
    if args.command == "platforms":
        sys.stdout.write("".join(f"{o}/{a}\n" for o, a in PLATFORMS))
    elif args.command == "package":
        package(args)
    else:
        manifest(args)


if __name__ == "__main__":
    main()
