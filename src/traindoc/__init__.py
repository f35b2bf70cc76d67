"""traindoc: tells ML engineers why their training run is not learning."""

__version__ = "0.1.0"


def __getattr__(name: str):
    if name in ("Monitor", "TrainingStopped", "Policy"):
        import traindoc.live as live

        return getattr(live, name)
    raise AttributeError(f"module 'traindoc' has no attribute {name!r}")
