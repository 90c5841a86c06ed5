"""Two-player lízaný: actions and observation layout (actions), the game and its AEC
environment (game), the arena driver (arena) and the rule-based robot (table_robot)."""
