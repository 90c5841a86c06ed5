"""Moved to :mod:`mariash_env.games.lizany.table_robot` (issue #30):
this old name is that module itself."""

import sys

from ..games.lizany import table_robot as _moved

sys.modules[__name__] = _moved
