from setuptools import setup

# Used by Beam/Dataflow (--setup_file) to ship tnforge to workers; all metadata is in pyproject.toml.
setup()
