"""Pages that stand in front of the source: bot checks, cookie-consent interstitials, paywalls.

A wall is never judged as the source (a "Just a moment..." page supports nothing and would make
every citation look unsupported); the source is `inaccessible` with the reason returned here.
Pure text functions, no I/O: fetch asks `challenge_reason` about refused responses, the loader
asks `wall_reason` about every extracted page, in the page's language.

Walls' wording is per language (`walls` in companion/languages/<code>.json: English, French,
German, Spanish, Portuguese, Italian, Russian, Chinese, Japanese, Korean today): a page reads its
own language's wording and English's, since bot
checks and consent services answer an automated reader, which asks for no language, in English
whatever the site's. A language with no wording of its own is read for English's and for the
markup, which is the same in every language.

Every rule needs two things: a wall's wording or markup, and a page too short to be an article.
A page's length is counted in words, and Chinese, Japanese and Thai put no space between words: their
characters count two to a word (`_words_in`), or a whole article in them would read as a few
"words" and any wording on it as a wall.
Bot-protection scripts run on ordinary pages too (Cloudflare injects /cdn-cgi/challenge-platform/
into articles, PerimeterX its _pxAppId sensor), and articles mention captchas, cookies and
subscriptions; only their length tells them from the wall.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache

from .. import languages

__all__ = ["BLOCKED", "PAYWALLED", "challenge_reason", "wall_reason"]

BLOCKED = "the site blocked automated reading"
PAYWALLED = "paywalled or login required"


@dataclass(frozen=True, slots=True)
class _Wording:
    """What walls say in one language (`walls` of its file in companion/languages/): bot checks,
    consent interstitials, paywalls; from the services' pages (Cloudflare, DataDome, PerimeterX/
    HUMAN, Akamai, Imperva, Sucuri, AWS WAF, Vercel, DDoS-Guard, reCAPTCHA/hCaptcha/Turnstile), the
    TCF banners (Sourcepoint, OneTrust, Quantcast, Didomi) and each language's large sites. A word
    that holds English's "consent" ("consentimiento", "consentement") is left out of the others:
    one signal, not two."""

    challenge: re.Pattern[str]
    consent: re.Pattern[str]
    paywall: re.Pattern[str]


def _words(alternatives: tuple[str, ...]) -> re.Pattern[str]:
    return re.compile("|".join(alternatives) if alternatives else r"(?!)", re.IGNORECASE)


# Bot checks and consent services answer an automated reader, which asks for no language, in
# English whatever the site's: every page is read for English's wording too.
_ALWAYS = "en"


@cache
def _wording(code: str) -> _Wording | None:
    """A language's wording, or None where its file has none (or there is no file)."""
    record = languages.language(code)
    if record is None or not (record.walls.challenge or record.walls.consent or record.walls.paywall):
        return None
    walls = record.walls
    return _Wording(_words(walls.challenge), _words(walls.consent), _words(walls.paywall))


def _wordings() -> tuple[_Wording, ...]:
    """Every language's wording."""
    return tuple(w for w in map(_wording, languages.codes()) if w is not None)


# Markup found on the challenge pages themselves, not on the pages they protect.
_CHALLENGE_MARKUP = re.compile(
    r"window\._cf_chl_opt|cf-browser-verification|id=[\"']challenge-(form|running|error-text)|"
    r"cf-turnstile|captcha-delivery\.com|id=[\"']px-captcha|_Incapsula_Resource|"
    r"sucuri-firewall|awswaf|ddos-guard|vercel security checkpoint|"
    r"class=[\"'](g-recaptcha|h-captcha)",
    re.IGNORECASE,
)
# A challenge page says a few dozen words; the shortest articles say a few hundred.
_CHALLENGE_MAX_WORDS = 150

# Distinct consent phrases: one is a banner footnote, three are the page.
_CONSENT_MIN_SIGNALS = 3
_CONSENT_MAX_WORDS = 400

# A page this short that talks about subscribing is a paywall or a login wall, not an article.
_PAYWALL_MAX_WORDS = 250
_TITLE = re.compile(r"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)
_HEAD_CHARS = 200_000  # challenge markup sits near the top; no need to scan a whole page


def challenge_reason(html: str) -> str | None:
    """BLOCKED when a refused response (403, 429, 503) is a bot check, else None.

    The status already says the page was refused, so the check's markup or title is enough,
    in any language walls are read in: the page's language is not known before it is read.
    """
    head = html[:_HEAD_CHARS]
    title = _title(head)
    if _CHALLENGE_MARKUP.search(head) or (title and any(w.challenge.search(title) for w in _wordings())):
        return BLOCKED
    return None


def wall_reason(text: str, *, html: str = "", title: str = "", language: str = "en") -> str | None:
    """Why an extracted page (its main text, and its HTML when there is some) is a wall, or None.
    `language`: the page's, as detected when it was read (its Document's)."""
    words = _words_in(text)
    head = html[:_HEAD_CHARS]
    title = title or _title(head)
    wordings = [w for w in map(_wording, dict.fromkeys((_ALWAYS, language))) if w is not None]
    if words <= _CHALLENGE_MAX_WORDS and (
        _CHALLENGE_MARKUP.search(head) or any(w.challenge.search(f"{title}\n{text}") for w in wordings)
    ):
        return BLOCKED
    if words <= _CONSENT_MAX_WORDS:
        signals = {m.group().lower() for w in wordings for m in w.consent.finditer(text)}
        if len(signals) >= _CONSENT_MIN_SIGNALS:
            return BLOCKED
    if words < _PAYWALL_MAX_WORDS and any(w.paywall.search(text) for w in wordings):
        return PAYWALLED
    return None


# Scripts written without spaces between words: Han, kana and CJK punctuation, Thai, Lao, Khmer
# and Myanmar.
_UNSPACED = re.compile(
    "[\u3000-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff00-\uffef"
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff]"
)


def _words_in(text: str) -> int:
    """Words in `text`, characters of unspaced scripts two to a word: an approximation (a word of
    Chinese is one or two characters, of Japanese two or three, of Thai four or more) that puts a
    page in these scripts on the same scale as the length bars, which were set in words."""
    unspaced = len(_UNSPACED.findall(text))
    return len(_UNSPACED.sub(" ", text).split()) + unspaced // 2


def _title(html: str) -> str:
    match = _TITLE.search(html)
    return " ".join(match.group(1).split()) if match else ""
