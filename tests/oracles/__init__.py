"""Pure-Python references of the compiled core (``pipeline.native``): the oracles the
equivalence tests and the fuzzer (``scripts/fuzz_extract.py``) hold the compiled code to.

The package never imports them: its one runtime path is the compiled one. Each module says
which compiled function it restates; a change to one side without the other fails the tests
that compare them.
"""
