"""Pages that stand in front of the source: bot checks, cookie-consent interstitials, paywalls.

A wall is never judged as the source (a "Just a moment..." page supports nothing and would make
every citation look unsupported); the source is `inaccessible` with the reason returned here.
Pure text functions, no I/O: fetch asks `challenge_reason` about refused responses, the loader
asks `wall_reason` about every extracted page.

Every rule needs two things: a wall's wording or markup, and a page too short to be an article.
Bot-protection scripts run on ordinary pages too (Cloudflare injects /cdn-cgi/challenge-platform/
into articles, PerimeterX its _pxAppId sensor), and articles mention captchas, cookies and
subscriptions; only their length tells them from the wall.
"""

from __future__ import annotations

import re

__all__ = ["BLOCKED", "PAYWALLED", "challenge_reason", "wall_reason"]

BLOCKED = "the site blocked automated reading"
PAYWALLED = "paywalled or login required"

# What bot checks say (Cloudflare, DataDome, PerimeterX/HUMAN, Akamai, Imperva, Sucuri, AWS WAF,
# Vercel, DDoS-Guard, reCAPTCHA/hCaptcha/Turnstile interstitials), in their titles and texts.
_CHALLENGE_WORDS = re.compile(
    r"just a moment(\.\.\.|…)|checking (your browser before accessing|if the site connection is secure)|"
    r"needs to review the security of your connection|performing security verification|"
    r"verify(ing)? (that )?you are (a )?human|are you a robot|press (&|and) hold|"
    r"enable javascript and cookies to continue|please enable js and disable any ad blocker|"
    r"access to this page has been denied|unusual traffic from your (computer )?network|"
    r"attention required! \| cloudflare|request unsuccessful\. incapsula|why have i been blocked|"
    r"sorry, you have been blocked|pardon our interruption|ddos protection by|"
    r"please (complete|solve) the (security check|captcha)|vercel security checkpoint|"
    r"you don'?t have permission to access",
    re.IGNORECASE,
)
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

# What consent interstitials say: TCF banners (Sourcepoint, OneTrust, Quantcast), Yahoo's and
# Google's "before you continue" pages, and their buttons.
_CONSENT_WORDS = re.compile(
    r"accept (all|cookies)|reject (all|cookies)|(allow|refuse|decline) (all|cookies)|"
    r"manage (my )?(cookies|preferences|options|settings|choices)|"
    r"(cookie|privacy|consent) (settings|preferences|choices)|your privacy choices|"
    r"we (and our (\d+ )?(partners|vendors) )?(use|store) cookies|we value your privacy|"
    r"before you continue|legitimate interest|store and/or access information on a device|"
    r"personali[sz]ed (ads|advertising) and content|consent",
    re.IGNORECASE,
)
# Distinct consent phrases: one is a banner footnote, three are the page.
_CONSENT_MIN_SIGNALS = 3
_CONSENT_MAX_WORDS = 400

# A page this short that talks about subscribing is a paywall or a login wall, not an article.
_PAYWALL = re.compile(
    r"subscribe (now|to (continue|read))|already a subscriber|sign in to (continue|read)|"
    r"this (article|content) is (for|available to) (subscribers|members)|create a free account to continue",
    re.IGNORECASE,
)
_PAYWALL_MAX_WORDS = 250
_TITLE = re.compile(r"<title[^>]*>(.*?)</title", re.IGNORECASE | re.DOTALL)
_HEAD_CHARS = 200_000  # challenge markup sits near the top; no need to scan a whole page


def challenge_reason(html: str) -> str | None:
    """BLOCKED when a refused response (403, 429, 503) is a bot check, else None.

    The status already says the page was refused, so the check's markup or title is enough.
    """
    head = html[:_HEAD_CHARS]
    title = _title(head)
    if _CHALLENGE_MARKUP.search(head) or (title and _CHALLENGE_WORDS.search(title)):
        return BLOCKED
    return None


def wall_reason(text: str, *, html: str = "", title: str = "") -> str | None:
    """Why an extracted page (its main text, and its HTML when there is some) is a wall, or None."""
    words = len(text.split())
    head = html[:_HEAD_CHARS]
    title = title or _title(head)
    if words <= _CHALLENGE_MAX_WORDS and (
        _CHALLENGE_MARKUP.search(head) or _CHALLENGE_WORDS.search(f"{title}\n{text}")
    ):
        return BLOCKED
    if words <= _CONSENT_MAX_WORDS:
        signals = {m.group().lower() for m in _CONSENT_WORDS.finditer(text)}
        if len(signals) >= _CONSENT_MIN_SIGNALS:
            return BLOCKED
    if words < _PAYWALL_MAX_WORDS and _PAYWALL.search(text):
        return PAYWALLED
    return None


def _title(html: str) -> str:
    match = _TITLE.search(html)
    return " ".join(match.group(1).split()) if match else ""
