"""The standard payment terms are recognised in every form a quote may hold them, so a
document prints them in its own language (an English document names no Chinese term)."""

from app.i18n import translations
from app.plans.service import DEFAULT_PAYMENT_TERMS, is_default_terms


def test_the_english_default_names_no_chinese_term() -> None:
    assert DEFAULT_PAYMENT_TERMS == "Payment by bank transfer within 30 days of the invoice date."
    assert not any("\u4e00" <= ch <= "\u9fff" for ch in DEFAULT_PAYMENT_TERMS)


def test_the_chinese_default_says_統一發票() -> None:
    zh = translations("zh-TW").gettext(DEFAULT_PAYMENT_TERMS)
    assert zh == "於統一發票開立日起 30 日內以銀行匯款支付。"
    assert is_default_terms(zh)


def test_quotes_saved_with_the_former_sentence_still_hold_the_default() -> None:
    # Saved before the English sentence lost its gloss: still the default, so the
    # document prints today's sentence in the document's language.
    assert is_default_terms(
        "Payment by bank transfer within 30 days of the invoice (統一發票) date."
    )
    assert is_default_terms("  " + DEFAULT_PAYMENT_TERMS + " ")


def test_a_customer_s_own_terms_are_not_the_default() -> None:
    assert not is_default_terms("Payment within 60 days of delivery.")
    assert not is_default_terms("")
    assert not is_default_terms(None)
