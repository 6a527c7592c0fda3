"""Core CLI subcommands; each module here provides ``register(registry)``."""
