"""The catalog: GPUs, servers, rental offers, cloud instances, energy, FX and buying
parameters, in versioned price lists (issue 3).

`models` (tables), `kinds` (each kind of row described once), `service` (the only code that
writes; price books for the cost engine), `io` (CSV/JSON import with preview, export),
`shipped` (the data files, no database), `routes` (JSON API), `pages` (HTML), `cli`
(`stratagem catalog …`), `access` (who may edit).
"""
