"""home."""
