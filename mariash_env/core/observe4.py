"""Moved to :mod:`mariash_env.games.voleny.observe4` (issue #30):
this old name is that module itself."""

import sys

from ..games.voleny import observe4 as _moved

sys.modules[__name__] = _moved
