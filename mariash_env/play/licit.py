"""Moved to :mod:`mariash_env.games.licitovany.play` (issue #30):
this old name is that module itself."""

import sys

from ..games.licitovany import play as _moved

sys.modules[__name__] = _moved
