"""Reference oracles: simple, slow, obviously correct versions of the fast paths.

Each function here computes what a production routine computes, by brute force or one
element at a time, so that tests (with hypothesis where inputs vary) and benchmarks
(``python3 -m game.bench``) compare the fast path against it.  Nothing in the game
imports this package.
"""
