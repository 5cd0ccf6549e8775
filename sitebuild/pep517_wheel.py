"""`python pep517_wheel.py OUTDIR`, run in the source tree to package: builds its wheel with
the PEP 517 backend pyproject.toml names and prints the wheel's file name. engine_wheel.py
runs it in a subprocess with the pinned setuptools first on the path."""
import importlib
import sys
import tomllib

with open("pyproject.toml", "rb") as f:
    backend = importlib.import_module(tomllib.load(f)["build-system"]["build-backend"])
print(backend.build_wheel(sys.argv[1]))
