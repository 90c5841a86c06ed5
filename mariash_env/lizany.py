"""Moved to :mod:`mariash_env.games.lizany.game` (issue #30):
this old name is that module itself."""

import sys

from .games.lizany import game as _moved

sys.modules[__name__] = _moved
