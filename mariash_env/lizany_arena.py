"""Moved to :mod:`mariash_env.games.lizany.arena` (issue #30):
this old name is that module itself."""

import sys

from .games.lizany import arena as _moved

sys.modules[__name__] = _moved
