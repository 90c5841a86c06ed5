"""Moved to :mod:`mariash_env.games.voleny.actions` (issue #30):
this old name is that module itself."""

import sys

from .games.voleny import actions as _moved

sys.modules[__name__] = _moved
