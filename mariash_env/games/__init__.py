"""One package per game (``voleny``, ``licitovany``, ``lizany``), each with its action
table, phase functions, settlement, observation, record reader, world sampler and table
robot; :mod:`mariash_env.games.registry` lists them (``game_kind``, ``games``,
``register_game``).  Importing this package imports no game."""
