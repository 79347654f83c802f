"""The package's errors, and the optional imports (pandas, matplotlib, yaml) that raise them.

Standard library only: `import simtlab` never imports pandas or matplotlib; the functions that
need one import it when called (need()) and say which package is missing and how to install it.
"""
import importlib
import sys


class MissingDependency(ImportError):
    """A function needs a package this interpreter cannot import (pandas, matplotlib, yaml).
    `package` is its import name; the message says how to install it."""

    def __init__(self, message, package):
        super().__init__(message, name=package)
        self.package = package

    def __str__(self):
        return self.args[0]


class SimtlabDataError(ValueError):
    """A simtlab output file (stats.json, status.json, plan.json, results.csv) that is missing,
    not valid, or lacks a field. The message starts with the file's path and names the field."""


class MissingFile(SimtlabDataError, FileNotFoundError):
    """The file is not there."""


class SimtlabWarning(UserWarning):
    """A file left out of a result (a sweep run whose stats cannot be read); names the file."""


# import name -> (pip package, Debian package)
_PACKAGES = {"pandas": ("pandas", "python3-pandas"),
             "matplotlib": ("matplotlib", "python3-matplotlib"),
             "yaml": ("pyyaml", "python3-yaml")}


def need(module, feature):
    """Import `module` for `feature` ("simtlab.load_run"), or raise MissingDependency naming
    the package and how to get it."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        pip, apt = _PACKAGES.get(module, (module, "python3-" + module))
        raise MissingDependency(
            f"{feature} needs the Python package '{module}', which this interpreter "
            f"({sys.executable}) cannot import ({e}); install it with `pip install {pip}` "
            f"(in a venv, conda or pyenv environment) or `apt install {apt}` (for Debian's "
            "/usr/bin/python3)", module) from e
