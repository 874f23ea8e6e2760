"""Response hardening: security headers (CSP and friends) and the self-hosted API docs."""
