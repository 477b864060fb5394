"""Meta-evaluation: discriminative power, ties, degradation, orientation."""
