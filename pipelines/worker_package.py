"""tnforge as a source package for Dataflow's workers, built here before the job is submitted: quietly (the
build tool's chatter is captured), once per process, and with one clear line when the tools it needs are
missing or the build fails — instead of Beam's own `--setup_file` build, which prints the tool's progress,
falls back to `setup.py sdist` when `build` is missing and can still exit 0."""

from __future__ import annotations

import atexit
import functools
import importlib.metadata
import importlib.util
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from tnforge.errors import RunnerOptionError

#: (module, requirement) the package build needs in this environment (`python -m build --no-isolation` uses the
#: installed setuptools, which must read pyproject.toml's licence expression: 77 or newer).
BUILD_TOOLS = (("build", "build"), ("wheel", "wheel"), ("setuptools", "setuptools>=77"))
INSTALL_HINT = "pip install -e '.[gcp]' (or: pip install build wheel 'setuptools>=77')"


def missing_build_tools() -> list[str]:
    """The requirements of BUILD_TOOLS this environment does not meet."""
    missing = [requirement for module, requirement in BUILD_TOOLS if importlib.util.find_spec(module) is None]
    if "setuptools>=77" not in missing:
        major = importlib.metadata.version("setuptools").split(".")[0]
        if not major.isdigit() or int(major) < 77:
            missing.append("setuptools>=77")
    return missing


@functools.cache
def worker_package(checkout: Path) -> str:
    """The path of a source package (.tar.gz) of the tnforge checkout `checkout`, built once per process into
    a temporary folder removed at exit; RunnerOptionError (one line) when it cannot be built."""
    if missing := missing_build_tools():
        raise RunnerOptionError(f"DataflowRunner ships tnforge to its workers as a source package, and building "
                                f"it needs {', '.join(missing)}: {INSTALL_HINT}")
    folder = tempfile.mkdtemp(prefix="tnforge-package-")
    atexit.register(shutil.rmtree, folder, True)
    command = [sys.executable, "-m", "build", "--no-isolation", "--sdist", "--outdir", folder, str(checkout)]
    result = subprocess.run(command, capture_output=True, text=True)
    packages = sorted(Path(folder).glob("*.tar.gz"))
    if result.returncode != 0 or not packages:
        said = [line.strip() for line in (result.stderr + result.stdout).splitlines() if line.strip()]
        raise RunnerOptionError(f"building tnforge's package for the Dataflow workers from {checkout} failed: "
                                f"{said[-1] if said else f'exit status {result.returncode}'}")
    return str(packages[0])
