"""The catalog service: the only code that writes catalog rows, and the only place that commits.

Functions take keyword-only arguments (`session` first) and raise `CatalogError`s (404 /
409 / 422 with the field at fault) that the routes turn into responses. Every change writes
an `AuditEntry` in the same transaction and bumps the price list's `revision`, the key of the
in-process price-book cache.

Versioning rules
----------------
* A price list is `draft` (editable), `published` (frozen: plans quote from it) or `archived`
  (frozen, no longer current). Rows of a published list never change; a change starts with
  `new_price_list_from`, which copies every row into a new draft.
* The current list is the latest published one whose effective date has come; when every
  published list starts in the future, the soonest one (a fresh install still prices).
* GPU specifications are global (not versioned); their purchase prices are per list.

Modules, by concern: `versions` (look-ups, the current list, the draft rule), `price_lists`
(create / copy / update / publish / archive / delete), `comparisons` (two lists side by
side), `rows` (row CRUD per kind), `books`
(price books of stored lists and their cache), `imports` (preview / apply, the shipped
catalog), `exports`, `audit` (the trail), `errors`. Other code imports from here
(`from app.catalog import service`): the names below are the service's public surface.
"""

from app.catalog.kinds import kind
from app.catalog.service.audit import list_audit
from app.catalog.service.books import (
    clear_cache as clear_price_books,
)
from app.catalog.service.books import (
    current_price_book,
    price_book_for,
    price_book_if_any,
    stored_price_book,
)
from app.catalog.service.comparisons import clear_cache as clear_comparisons
from app.catalog.service.comparisons import compare_price_lists, default_against
from app.catalog.service.errors import CatalogError, Conflict, InvalidRow, NotFound
from app.catalog.service.exports import export_document, export_file, export_rows
from app.catalog.service.imports import (
    IMPORT_UPLOAD_TTL,
    SYSTEM,
    AlreadyApplied,
    StagedImport,
    apply_import,
    apply_staged_import,
    existing_rows,
    gpu_changes,
    load_shipped,
    load_shipped_if_empty,
    preview_import,
    stage_import,
    staged_import,
)
from app.catalog.service.price_lists import (
    archive_price_list,
    counts,
    create_price_list,
    delete_price_list,
    new_price_list_from,
    price_list_detail,
    price_list_public,
    price_lists_public,
    publish_price_list,
    update_price_list,
)
from app.catalog.service.rows import (
    cloud_public,
    create_row,
    delete_row,
    get_row,
    gpu_ids,
    gpu_prices,
    gpu_usage,
    gpus_for,
    gpus_public,
    list_rows,
    offers_public,
    row_values,
    sort_columns,
    update_row,
    validate_row,
)
from app.catalog.service.versions import (
    check_new_draft_name,
    current_price_list,
    get_price_list,
    list_price_lists,
    resolve_price_list,
)

__all__ = [
    "IMPORT_UPLOAD_TTL",
    "SYSTEM",
    "AlreadyApplied",
    "CatalogError",
    "Conflict",
    "InvalidRow",
    "NotFound",
    "StagedImport",
    "apply_import",
    "apply_staged_import",
    "archive_price_list",
    "check_new_draft_name",
    "clear_cache",
    "cloud_public",
    "compare_price_lists",
    "counts",
    "create_price_list",
    "create_row",
    "current_price_book",
    "current_price_list",
    "default_against",
    "delete_price_list",
    "delete_row",
    "existing_rows",
    "export_document",
    "export_file",
    "export_rows",
    "get_price_list",
    "get_row",
    "gpu_changes",
    "gpu_ids",
    "gpu_prices",
    "gpu_usage",
    "gpus_for",
    "gpus_public",
    "kind",
    "list_audit",
    "list_price_lists",
    "list_rows",
    "load_shipped",
    "load_shipped_if_empty",
    "new_price_list_from",
    "offers_public",
    "preview_import",
    "price_book_for",
    "price_book_if_any",
    "price_list_detail",
    "price_list_public",
    "price_lists_public",
    "publish_price_list",
    "resolve_price_list",
    "row_values",
    "sort_columns",
    "stage_import",
    "staged_import",
    "stored_price_book",
    "update_price_list",
    "update_row",
    "validate_row",
]


def clear_cache() -> None:
    """Forget every cached price book and price-list comparison."""
    clear_price_books()
    clear_comparisons()
