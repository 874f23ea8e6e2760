"""Rate limits on anonymous endpoints (quote requests, share-link lookups), held in the
database so every app process counts the same hits."""
