"""Moved to :mod:`mariash_env.games.licitovany.table_robot` (issue #30):
this old name is that module itself."""

import sys

from ..games.licitovany import table_robot as _moved

sys.modules[__name__] = _moved
