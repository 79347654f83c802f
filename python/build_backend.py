"""A minimal in-tree PEP 517 build backend (standard library only), so that
`pip install ./python` works without network access: it packs simtlab/ into a wheel."""
import base64
import hashlib
import os
import zipfile

NAME, VERSION = "simtlab", "0.1.0"
HERE = os.path.dirname(os.path.abspath(__file__))
DIST = f"{NAME}-{VERSION}.dist-info"


def _files():
    for root, _, files in os.walk(os.path.join(HERE, NAME)):
        for f in sorted(files):
            if f.endswith((".py", ".css", ".js")):
                full = os.path.join(root, f)
                yield full, os.path.relpath(full, HERE)


def _record_line(arc, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{arc},sha256={digest},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    d = os.path.join(metadata_directory, DIST)
    os.makedirs(d, exist_ok=True)
    with open(os.path.join(d, "METADATA"), "w") as f:
        f.write(_metadata())
    return DIST


def _metadata():
    return (f"Metadata-Version: 2.1\nName: {NAME}\nVersion: {VERSION}\n"
            "Summary: Python API of the simtlab GPU simulator\n"
            "Requires-Python: >=3.9\n")


def _wheel(wheel_directory, entries):
    fname = f"{NAME}-{VERSION}-py3-none-any.whl"
    records = []
    with zipfile.ZipFile(os.path.join(wheel_directory, fname), "w", zipfile.ZIP_DEFLATED) as z:
        for arc, data in entries:
            z.writestr(arc, data)
            records.append(_record_line(arc, data))
        meta = {
            f"{DIST}/METADATA": _metadata().encode(),
            f"{DIST}/WHEEL": b"Wheel-Version: 1.0\nGenerator: simtlab build_backend\n"
                             b"Root-Is-Purelib: true\nTag: py3-none-any\n",
        }
        for arc, data in meta.items():
            z.writestr(arc, data)
            records.append(_record_line(arc, data))
        records.append(f"{DIST}/RECORD,,")
        z.writestr(f"{DIST}/RECORD", "\n".join(records) + "\n")
    return fname


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    entries = []
    for full, arc in _files():
        with open(full, "rb") as f:
            entries.append((arc, f.read()))
    return _wheel(wheel_directory, entries)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _wheel(wheel_directory, [(f"{NAME}.pth", (HERE + "\n").encode())])
