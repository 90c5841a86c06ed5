"""``pyspiel``, imported before the modules that use it: without ``open_spiel`` the
package's import raises :class:`~mariash_env.extras.MissingExtraError` naming the
``openspiel`` extra instead of a bare ``ModuleNotFoundError``."""

from __future__ import annotations

from ..extras import needs

with needs("openspiel", "mariash_env.openspiel (OpenSpiel)", "pyspiel", "open_spiel"):
    import pyspiel

__all__ = ["pyspiel"]
