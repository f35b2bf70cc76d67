"""traindoc: tells ML engineers why their training run is not learning."""

__version__ = "0.1.0"
