"""Read-only share links for plans: a secret URL a customer can open without signing in."""
