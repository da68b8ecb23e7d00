"""The pure rules core: tiles, wall, win shapes, the hand state machine and the variants.

Nothing here does I/O, reads a clock or touches the module-level RNG: every function is a
deterministic function of its arguments (randomness comes in as a seeded `random.Random`).
"""
