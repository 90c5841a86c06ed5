"""Moved to :mod:`mariash_env.games.voleny.four` (issue #30):
this old name is that module itself."""

import sys

from ..games.voleny import four as _moved

sys.modules[__name__] = _moved
