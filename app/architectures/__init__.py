"""architectures."""
