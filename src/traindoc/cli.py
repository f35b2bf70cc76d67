"""Command line: the only layer that reads argv or prints."""


def main() -> None:
    raise SystemExit("not yet")
