"""Moved to :mod:`mariash_env.games.voleny.table_robot` (issue #30):
this old name is that module itself."""

import sys

from ..games.voleny import table_robot as _moved

sys.modules[__name__] = _moved
