"""Command-line interface: ``irpref COMMAND ...``."""
