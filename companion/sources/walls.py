"""Pages that stand in front of the source: bot checks, cookie-consent interstitials, paywalls.

A wall is never judged as the source (a "Just a moment..." page supports nothing and would make
every citation look unsupported); the source is `inaccessible` with the reason returned here.
Pure text functions, no I/O: fetch asks `challenge_reason` about refused responses, the loader
asks `wall_reason` about every extracted page, in the page's language.

Walls' wording is per language (English, French): a page reads its own language's wording and
English's, since bot checks and consent services answer an automated reader, which asks for no
language, in English whatever the site's. A language with no wording of its own is read for
English's and for the markup, which is the same in every language.

Every rule needs two things: a wall's wording or markup, and a page too short to be an article.
Bot-protection scripts run on ordinary pages too (Cloudflare injects /cdn-cgi/challenge-platform/
into articles, PerimeterX its _pxAppId sensor), and articles mention captchas, cookies and
subscriptions; only their length tells them from the wall.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["BLOCKED", "PAYWALLED", "challenge_reason", "wall_reason"]

BLOCKED = "the site blocked automated reading"
PAYWALLED = "paywalled or login required"


@dataclass(frozen=True, slots=True)
class _Wording:
    """What walls say in one language: bot checks, consent interstitials, paywalls."""

    challenge: re.Pattern[str]
    consent: re.Pattern[str]
    paywall: re.Pattern[str]


def _words(*alternatives: str) -> re.Pattern[str]:
    return re.compile("|".join(alternatives), re.IGNORECASE)


_WORDING = {
    "en": _Wording(
        # Cloudflare, DataDome, PerimeterX/HUMAN, Akamai, Imperva, Sucuri, AWS WAF, Vercel,
        # DDoS-Guard, reCAPTCHA/hCaptcha/Turnstile interstitials, in their titles and texts.
        _words(
            r"just a moment(\.\.\.|…)",
            r"checking (your browser before accessing|if the site connection is secure)",
            r"needs to review the security of your connection",
            r"performing security verification",
            r"verify(ing)? (that )?you are (a )?human",
            r"are you a robot",
            r"press (&|and) hold",
            r"enable javascript and cookies to continue",
            r"please enable js and disable any ad blocker",
            r"access to this page has been denied",
            r"unusual traffic from your (computer )?network",
            r"attention required! \| cloudflare",
            r"request unsuccessful\. incapsula",
            r"why have i been blocked",
            r"sorry, you have been blocked",
            r"pardon our interruption",
            r"ddos protection by",
            r"please (complete|solve) the (security check|captcha)",
            r"vercel security checkpoint",
            r"you don'?t have permission to access",
        ),
        # TCF banners (Sourcepoint, OneTrust, Quantcast), Yahoo's and Google's "before you
        # continue" pages, and their buttons.
        _words(
            r"accept (all|cookies)",
            r"reject (all|cookies)",
            r"(allow|refuse|decline) (all|cookies)",
            r"manage (my )?(cookies|preferences|options|settings|choices)",
            r"(cookie|privacy|consent) (settings|preferences|choices)",
            r"your privacy choices",
            r"we (and our (\d+ )?(partners|vendors) )?(use|store) cookies",
            r"we value your privacy",
            r"before you continue",
            r"legitimate interest",
            r"store and/or access information on a device",
            r"personali[sz]ed (ads|advertising) and content",
            r"consent",
        ),
        _words(
            r"subscribe (now|to (continue|read))",
            r"already a subscriber",
            r"sign in to (continue|read)",
            r"this (article|content) is (for|available to) (subscribers|members)",
            r"create a free account to continue",
        ),
    ),
    "fr": _Wording(
        # The same services' French pages (Cloudflare, DataDome, PerimeterX, Akamai).
        _words(
            r"un instant(\.\.\.|…)",
            r"vérification (de votre navigateur|de la sécurité de votre connexion)",
            r"vérification que vous êtes (un )?humain",
            r"vérifiez que vous êtes (un )?humain",
            r"êtes-vous un robot",
            r"appuyez (et maintenez|longuement)",
            r"activez javascript et les cookies pour continuer",
            r"veuillez activer js et désactiver tout bloqueur de publicités?",
            r"l'accès à cette page a été refusé",
            r"vous avez été bloqué",
            r"trafic inhabituel",
        ),
        # The French TCF banners (Didomi, Sourcepoint, OneTrust) and their buttons.
        _words(
            r"tout (accepter|refuser)",
            r"accepter (et (fermer|continuer)|les cookies)",
            r"continuer sans accepter",
            r"(paramétrer|personnaliser) (les |mes )?(cookies|choix)",
            r"gérer (mes |les )?(préférences|choix|cookies|options|paramètres)",
            r"(nous|nos partenaires) (utilisons|utilisent|déposons|déposent) des cookies",
            r"vos choix (concernant|en matière de) (la )?(confidentialité|vie privée)",
            r"nous respectons votre vie privée",
            r"intérêt légitime",
            r"stocker et/ou accéder à des informations sur un appareil",
            r"publicités et (du )?contenu personnalisés",
            # "consentement" is English's "consent" already: one signal, not two.
        ),
        _words(
            r"abonnez-vous",
            r"déjà abonnée?",
            r"(la suite de cet article est|cet article est|la suite est) réservée? aux abonnés",
            r"il vous reste \d+ ?% de cet article à lire",
            r"connectez-vous pour (continuer|lire)",
            r"créez un compte gratuit pour continuer",
        ),
    ),
}
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
    if _CHALLENGE_MARKUP.search(head) or (
        title and any(w.challenge.search(title) for w in _WORDING.values())
    ):
        return BLOCKED
    return None


def wall_reason(text: str, *, html: str = "", title: str = "", language: str = "en") -> str | None:
    """Why an extracted page (its main text, and its HTML when there is some) is a wall, or None.
    `language`: the page's, as detected when it was read (its Document's)."""
    words = len(text.split())
    head = html[:_HEAD_CHARS]
    title = title or _title(head)
    wordings = [_WORDING["en"], *([_WORDING[language]] if language in _WORDING and language != "en" else [])]
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


def _title(html: str) -> str:
    match = _TITLE.search(html)
    return " ".join(match.group(1).split()) if match else ""
