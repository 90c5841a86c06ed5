"""``python -m mariash_env.play [options]`` = ``mariash play [options]``."""

import sys

from .cli import main

sys.exit(main(["play", *sys.argv[1:]]))
