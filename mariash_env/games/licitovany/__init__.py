"""Licitovaný mariáš (LICITOVANY.md): actions, phase functions (phases), contract table
(games), settlement, observation, record reader, world sampler, table robot, play table."""
