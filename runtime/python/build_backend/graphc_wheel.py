"""PEP 517 build backend of the graphc Python package.

It writes the wheel itself with the standard library (no setuptools or
wheel package), so `pip install --no-index --no-build-isolation` works
offline. The wheel holds the graphc package and libgraphc_runtime.so, taken
from, in order: the `runtime-library` config setting
(`pip install -C runtime-library=PATH`), the GRAPHC_RUNTIME_LIBRARY
environment variable, or [tool.graphc] default-runtime-library in
pyproject.toml (the default CMake build directory).
"""
import base64
import hashlib
import os
import sys
import sysconfig
import zipfile

try:
    import tomllib
except ImportError:  # Python < 3.11
    import tomli as tomllib

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PACKAGE = "graphc"
LIBRARY_NAME = "libgraphc_runtime.so"


def _project():
    with open(os.path.join(SOURCE_DIR, "pyproject.toml"), "rb") as f:
        return tomllib.load(f)


def _fail(message):
    # pip prints the backend's stderr; a traceback would bury the cause.
    sys.exit(f"graphc wheel: {message}")


def _runtime_library(config_settings, project):
    setting = (config_settings or {}).get("runtime-library")
    if setting:
        path, origin = setting, "the runtime-library config setting"
    elif os.environ.get("GRAPHC_RUNTIME_LIBRARY"):
        path = os.environ["GRAPHC_RUNTIME_LIBRARY"]
        origin = "GRAPHC_RUNTIME_LIBRARY"
    else:
        relative = project["tool"]["graphc"]["default-runtime-library"]
        path = os.path.join(SOURCE_DIR, relative)
        origin = "the default build directory"
    path = os.path.abspath(path)
    if not os.path.isfile(path):
        _fail(f"{LIBRARY_NAME} not found at {path} ({origin}); build it "
              "first (scripts/build.sh graphc_runtime) or pass "
              "-C runtime-library=PATH")
    with open(path, "rb") as f:
        if f.read(4) != b"\x7fELF":
            _fail(f"{path} ({origin}) is not a shared library")
    return path


def _tag():
    platform = sysconfig.get_platform().replace("-", "_").replace(".", "_")
    # The package is pure Python over ctypes; only the library ties it to
    # a platform.
    return f"py3-none-{platform}"


def _dist_info_name(meta):
    return f"{meta['name']}-{meta['version']}.dist-info"


def _metadata_text(meta):
    lines = ["Metadata-Version: 2.1", f"Name: {meta['name']}",
             f"Version: {meta['version']}"]
    if "description" in meta:
        lines.append(f"Summary: {meta['description']}")
    if "requires-python" in meta:
        lines.append(f"Requires-Python: {meta['requires-python']}")
    lines += [f"Requires-Dist: {dep}" for dep in meta.get("dependencies", [])]
    body = ""
    readme = meta.get("readme")
    if readme:
        lines.append("Description-Content-Type: text/markdown")
        with open(os.path.join(SOURCE_DIR, readme), encoding="utf-8") as f:
            body = "\n" + f.read()
    return "\n".join(lines) + "\n" + body


def _wheel_text():
    return ("Wheel-Version: 1.0\nGenerator: graphc_wheel\n"
            f"Root-Is-Purelib: false\nTag: {_tag()}\n")


def _package_files():
    """(archive name, source path) of the package's modules."""
    package_dir = os.path.join(SOURCE_DIR, PACKAGE)
    files = []
    for name in sorted(os.listdir(package_dir)):
        if name.endswith(".py"):
            files.append((f"{PACKAGE}/{name}", os.path.join(package_dir, name)))
    return files


def _record_line(name, data):
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest())
    return f"{name},sha256={digest.rstrip(b'=').decode()},{len(data)}"


def get_requires_for_build_wheel(config_settings=None):
    return []


def prepare_metadata_for_build_wheel(metadata_directory, config_settings=None):
    meta = _project()["project"]
    dist_info = _dist_info_name(meta)
    target = os.path.join(metadata_directory, dist_info)
    os.makedirs(target, exist_ok=True)
    with open(os.path.join(target, "METADATA"), "w", encoding="utf-8") as f:
        f.write(_metadata_text(meta))
    with open(os.path.join(target, "WHEEL"), "w", encoding="utf-8") as f:
        f.write(_wheel_text())
    return dist_info


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    project = _project()
    meta = project["project"]
    library = _runtime_library(config_settings, project)
    dist_info = _dist_info_name(meta)
    wheel_name = f"{meta['name']}-{meta['version']}-{_tag()}.whl"
    entries = []
    for name, source in _package_files():
        with open(source, "rb") as f:
            entries.append((name, f.read(), 0o644))
    with open(library, "rb") as f:
        entries.append((f"{PACKAGE}/{LIBRARY_NAME}", f.read(), 0o755))
    entries.append((f"{dist_info}/METADATA",
                    _metadata_text(meta).encode(), 0o644))
    entries.append((f"{dist_info}/WHEEL", _wheel_text().encode(), 0o644))
    record = [_record_line(name, data) for name, data, _ in entries]
    record.append(f"{dist_info}/RECORD,,")
    entries.append((f"{dist_info}/RECORD",
                    ("\n".join(record) + "\n").encode(), 0o644))

    path = os.path.join(wheel_directory, wheel_name)
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in entries:
            # A fixed date keeps the wheel identical for identical inputs.
            info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            info.external_attr = (0o100000 | mode) << 16
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, data)
    return wheel_name
