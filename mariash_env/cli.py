"""What the command-line tools share: bad input gives one ``error: …`` line, exit status 2."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn


class ArgumentParser(argparse.ArgumentParser):
    """``argparse`` with its usage errors as one ``error: …`` line on stderr, exit 2."""

    def error(self, message: str) -> NoReturn:
        fail(message)


def fail(message: object) -> NoReturn:
    """Print ``error: message`` on stderr and exit with status 2 (bad input)."""
    print(f"error: {message}", file=sys.stderr)
    raise SystemExit(2)
