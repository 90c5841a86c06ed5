"""Volený mariáš (RULES.md), three or four players: actions, observation (observe,
observe4), settlement, the four-seat mapping (four), world sampler and table robot."""
