"""The English covering grammars: one module per semiotic class (`schemas/classes.py` names each), the number
FSTs they build on (`numbers`), their tables in `data/` and their `written~spoken` test cases in `tests/`."""
