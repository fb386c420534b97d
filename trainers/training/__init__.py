"""The training room: the engine and what it stands on (devices, ranks, data sharding, checkpoints, resume state, run records, budgets)."""
