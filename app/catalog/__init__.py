"""The catalog: GPUs, servers, rental offers, cloud instances, energy, FX and buying
parameters, in versioned price lists (issue 3).

`models` (tables), `kinds` (each kind of row described once), `service` (a package: the only
code that writes; price books for the cost engine), `price_book` (the one constructor of an
engine `PriceBook` from catalog rows), `current` (the price book a web request quotes from),
`io` (CSV/JSON import with preview, export), `shipped` (the data files, no database),
`routes` (JSON API), `pages` (HTML routes), `views` (what the pages' templates get), `forms`
(reading the pages' posts), `cli` (`stratagem catalog …`), `access` (who may edit).
"""
