"""Training of mariáš agents: Deep Monte-Carlo self-play on the batched engine.

Entry points: ``python -m training.train`` (train / resume), ``python -m training.export``
(checkpoint -> ONNX robot), ``python -m training.evaluate`` (duplicate evaluation),
``python -m training.demo`` (five minutes from scratch to a robot that beats random).
See ``training/README.md``.  Needs the ``train`` extra (torch); the exported robot
(``mariash_env.robots.OnnxRobot``) does not.
"""
