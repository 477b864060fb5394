"""Output: terminal tables, TSV and JSON."""
