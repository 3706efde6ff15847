"""Wraps an article in a site's chrome, for metamorphic tests of extraction and the trust probe (issue 36).

The same article must give the judge the same sentences whether it comes bare or inside a
site's header and menu, cookie banner, newsletter box, related links, share bar and footer,
with an unrelated paragraph before and after it. The chrome here is written the way real sites
write it: some blocks carry telling classes, roles or aria-labels, some carry none and are
only recognisable by what they say or by being all links, and some sit inside <main> or
<article>, where a structural rule alone would keep them.
"""

from __future__ import annotations

from dataclasses import dataclass
from html import escape

import lxml.html

__all__ = ["PLACEMENTS", "Chrome", "article_of", "chrome_for", "wrap"]


@dataclass(frozen=True)
class Chrome:
    """One site's chrome in one language, and the text that must never reach the judge."""

    header: str
    cookie: str
    newsletter: str
    related: str
    share: str
    footer: str
    before: str  # an unrelated paragraph of the site: real content, kept or not, never merged
    after: str
    phrases: tuple[str, ...]  # distinctive chrome text, absent from any fixture article


_EN = Chrome(
    header=(
        '<header class="masthead"><a class="brand" href="/">The Daily Courier</a>'
        '<nav aria-label="Main menu"><ul><li><a href="/world">World</a></li><li><a href="/politics">'
        'Politics</a></li><li><a href="/business">Business</a></li><li><a href="/science">Science'
        '</a></li><li><a href="/culture">Culture</a></li><li><a href="/sport">Sport</a></li></ul>'
        '</nav><a href="/login">Sign in to your account</a></header>'
    ),
    cookie=(
        '<div id="cc-main" class="gdpr-notice" role="dialog" aria-label="Privacy choices">'
        "<p>We and our 143 partners store and access information on your device, such as cookies, "
        "to show you personalised ads and content, measure their performance and improve our "
        "services.</p><p>You can change your choices at any time in the privacy centre.</p>"
        "<button>Accept all</button><button>Reject all</button>"
        '<a href="/privacy-centre">Manage my choices</a></div>'
    ),
    newsletter=(
        '<section class="nl-signup"><h2>Get the Morning Briefing</h2><p>The stories that matter, '
        'in your inbox before breakfast every weekday.</p><form action="/subscribe">'
        '<input type="email" placeholder="Your email address"><button>Subscribe now</button>'
        "</form></section>"
    ),
    # No class or role: only its links say what it is.
    related=(
        "<div><h3>Read more</h3><ul>"
        '<li><a href="/a/1">Ten bridges that changed how engineers think about wind</a></li>'
        '<li><a href="/a/2">Inside the quiet fight over the city\'s last public orchard</a></li>'
        '<li><a href="/a/3">Why your train is late again, explained in four charts</a></li>'
        '<li><a href="/a/4">The photographers who spent a winter on a lighthouse</a></li>'
        "</ul></div>"
    ),
    share=(
        '<div class="article-tools"><span>Share this story</span>'
        '<a href="https://facebook.example/share">Facebook</a> <a href="https://x.example/intent">X</a> '
        '<a href="mailto:?subject=story">Email</a> <a href="#comments">Comments (214)</a></div>'
    ),
    footer=(
        '<footer class="site-footer"><div><h4>The Courier</h4><ul><li><a href="/about">About us</a>'
        '</li><li><a href="/jobs">Work for us</a></li><li><a href="/ads">Advertise with us</a></li>'
        '</ul></div><div><h4>Help</h4><ul><li><a href="/help">Help centre</a></li><li>'
        '<a href="/contact">Contact the newsroom</a></li><li><a href="/corrections">Corrections</a>'
        '</li></ul></div><div><h4>Legal</h4><ul><li><a href="/terms">Terms and conditions</a></li>'
        '<li><a href="/privacy">Privacy policy</a></li><li><a href="/cookies">Cookie policy</a></li>'
        "</ul></div><p>© 2025 Daily Courier Media Group. All rights reserved.</p></footer>"
    ),
    before=(
        "<p>The city council will vote next Tuesday on a plan to extend the night bus network to "
        "the three northern districts.</p>"
    ),
    after=(
        "<p>Tickets for the autumn music festival go on sale on Friday morning at the town hall "
        "and online.</p>"
    ),
    phrases=(
        "The Daily Courier",
        "Sign in to your account",
        "143 partners",
        "privacy centre",
        "Accept all",
        "Reject all",
        "Manage my choices",
        "Morning Briefing",
        "in your inbox",
        "Subscribe now",
        "Read more",
        "Ten bridges",
        "public orchard",
        "four charts",
        "lighthouse",
        "Share this story",
        "Facebook",
        "Comments (214)",
        "About us",
        "Work for us",
        "Advertise with us",
        "Help centre",
        "Contact the newsroom",
        "Terms and conditions",
        "Privacy policy",
        "Cookie policy",
        "All rights reserved",
    ),
)

_FR = Chrome(
    header=(
        '<header role="banner"><a href="/">Le Courrier du Sud</a><nav role="navigation"><ul>'
        '<li><a href="/monde">Monde</a></li><li><a href="/politique">Politique</a></li>'
        '<li><a href="/economie">Économie</a></li><li><a href="/sciences">Sciences</a></li>'
        '<li><a href="/culture">Culture</a></li></ul></nav><a href="/connexion">Se connecter à '
        "mon compte</a></header>"
    ),
    # No class: the words and the buttons give it away.
    cookie=(
        "<div><p>Avec votre accord, nous et nos partenaires utilisons des cookies ou technologies "
        "similaires pour stocker et accéder à des informations sur votre appareil. Vous pouvez "
        "retirer votre consentement à tout moment.</p><button>Tout accepter</button>"
        '<button>Tout refuser</button><a href="/cookies">Paramétrer les cookies</a></div>'
    ),
    newsletter=(
        '<div class="encart-lettre"><h2>Abonnez-vous à notre newsletter</h2><p>Recevez chaque '
        "matin l'essentiel de l'actualité régionale.</p><form><input type=\"email\" "
        'placeholder="Votre adresse e-mail"><button>Je m\'inscris</button></form></div>'
    ),
    related=(
        '<aside aria-label="À lire aussi"><h3>À lire aussi</h3><ul>'
        '<li><a href="/a/1">Les marchés de Noël ouvriront plus tôt cette année</a></li>'
        '<li><a href="/a/2">Sécheresse : les agriculteurs du Larzac inquiets pour l\'été</a></li>'
        '<li><a href="/a/3">Rugby : le club local remporte son troisième match de suite</a></li>'
        "</ul></aside>"
    ),
    share=(
        '<div class="partage"><span>Partager cet article</span>'
        '<a href="https://facebook.example/share">Facebook</a> '
        '<a href="https://x.example/intent">X</a> <a href="mailto:?subject=article">E-mail</a></div>'
    ),
    footer=(
        '<footer role="contentinfo"><ul><li><a href="/qui">Qui sommes-nous</a></li>'
        '<li><a href="/contact">Nous contacter</a></li><li><a href="/mentions">Mentions légales</a>'
        '</li><li><a href="/cgu">Conditions générales d\'utilisation</a></li>'
        '<li><a href="/confidentialite">Politique de confidentialité</a></li></ul>'
        "<p>© 2025 Le Courrier du Sud. Tous droits réservés.</p></footer>"
    ),
    before=(
        "<p>Le conseil municipal votera mardi prochain le prolongement des bus de nuit vers les "
        "quartiers nord.</p>"
    ),
    after="<p>La billetterie du festival d'automne ouvrira vendredi matin à la mairie et en ligne.</p>",
    phrases=(
        "Le Courrier du Sud",
        "Se connecter",
        "nos partenaires",
        "consentement",
        "Tout accepter",
        "Tout refuser",
        "Paramétrer les cookies",
        "Abonnez-vous",
        "actualité régionale",
        "inscris",
        "À lire aussi",
        "marchés de Noël",
        "Larzac",
        "troisième match",
        "Partager cet article",
        "Facebook",
        "Qui sommes-nous",
        "Nous contacter",
        "Mentions légales",
        "Conditions générales",
        "Politique de confidentialité",
        "Tous droits réservés",
    ),
)

_CHROME = {"en": _EN, "fr": _FR}

# Where the chrome sits: around <main>, inside <main> beside the article, and inside the
# <article> element itself (share bars and "read more" lists often do).
PLACEMENTS = ("outside", "in_main", "in_article")


def chrome_for(language: str) -> Chrome:
    return _CHROME.get(language[:2].lower(), _EN)


def article_of(page: str) -> tuple[str, str, str]:
    """(title, language, body markup) of a page or fragment, as it will be wrapped."""
    root = lxml.html.document_fromstring(page)
    title = (root.findtext(".//title") or "").strip()
    language = root.get("lang", "") or "en"
    body = root.find("body")
    if body is None:
        return title, language, page
    inner = (body.text or "") + "".join(
        lxml.html.tostring(child, encoding="unicode", with_tail=True) for child in body
    )
    return title, language, inner


def wrap(page: str, placement: str, language: str = "") -> str:
    """`page` (a whole page or an article fragment) inside a site's chrome, at `placement`."""
    title, page_language, article = article_of(page)
    c = chrome_for(language or page_language)
    if placement == "outside":
        body = (
            f'{c.header}{c.cookie}<main>{c.before}<div class="story">{article}</div>{c.after}</main>'
            f"{c.share}{c.related}{c.newsletter}{c.footer}"
        )
    elif placement == "in_main":
        body = (
            f'{c.header}<main>{c.cookie}{c.before}{c.share}<div class="story">{article}</div>'
            f"{c.newsletter}{c.related}{c.after}{c.footer}</main>"
        )
    elif placement == "in_article":
        body = (
            f"{c.cookie}{c.header}<main><article>{c.share}{c.before}<div>{article}</div>"
            f"{c.related}{c.newsletter}{c.after}{c.footer}</article></main>"
        )
    else:
        raise ValueError(f"unknown placement {placement!r}; one of {PLACEMENTS}")
    return (
        f'<!doctype html><html lang="{page_language}"><head><meta charset="utf-8">'
        f"<title>{escape(title)}</title></head><body>{body}</body></html>"
    )
