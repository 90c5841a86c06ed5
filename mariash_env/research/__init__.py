"""Research tools over the arena and the engines (issue #34): data sets of played deals
(:mod:`mariash_env.research.dataset`, ``mariash dataset``) and one rating per robot and
game (:mod:`mariash_env.research.ladder`, ``mariash ladder``).  Imported on demand: the
environment package never imports this one (it needs pyarrow and matplotlib)."""
