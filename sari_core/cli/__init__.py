"""The ``sari`` command line."""
