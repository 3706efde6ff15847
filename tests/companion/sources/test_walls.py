"""Bot checks, consent interstitials and paywalls are walls; articles that talk about them are not.

The wall pages are written here after the services' real pages (titles, wording, the markup
their scripts need); each goes through the real extractor first, as in the companion. Refused
responses (403/429/503) are served by a real aiohttp server and go through the guarded fetcher.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from aiohttp import web
from aiohttp.test_utils import TestServer

from companion.config import Limits
from companion.errors import NotReadable, SourceUnavailable
from companion.sources.addresses import AddressPolicy
from companion.sources.extract import html_to_document
from companion.sources.fetch import PageFetcher
from companion.sources.walls import BLOCKED, PAYWALLED, challenge_reason, wall_reason
from tests.conftest import free_port

PAGES = Path(__file__).resolve().parents[2] / "fixtures" / "pages"

CLOUDFLARE_JUST_A_MOMENT = """<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title>
<meta http-equiv="Content-Type" content="text/html; charset=UTF-8"><meta name="robots"
content="noindex,nofollow">
<style>*{box-sizing:border-box;margin:0;padding:0}html{line-height:1.15}</style></head><body>
<div class="main-wrapper" role="main"><div class="main-content"><h1 class="zone-name-title
h1">www.example-news.com</h1>
<h2 class="h2" id="challenge-running">Verifying you are human. This may take a few seconds.</h2>
<div id="challenge-stage"></div><div id="challenge-body-text" class="core-msg spacer">
www.example-news.com needs to review the security of your connection before proceeding.</div>
<noscript><div id="challenge-error-title"><div class="h2"><span class="icon-wrapper"></span>
<span id="challenge-error-text">Enable JavaScript and cookies to
continue</span></div></div></noscript></div></div>
<script>(function(){window._cf_chl_opt={cvId: '3',cZone: "www.example-news.com",cType: 'managed',
cRay: '8a1b2c3d4e5f6789',cH: 'abc'};var a = document.createElement('script');
a.src = '/cdn-cgi/challenge-platform/h/g/orchestrate/chl_page/v1?ray=8a1b2c3d4e5f6789';
document.getElementsByTagName('head')[0].appendChild(a);}());</script>
<div class="footer" role="contentinfo"><div class="footer-inner"><div class="clearfix diagnostic-wrapper">
<div class="ray-id">Ray ID: <code>8a1b2c3d4e5f6789</code></div></div>
<div class="text-center" id="footer-text">Performance &amp; security by
Cloudflare</div></div></div></body></html>"""

CLOUDFLARE_CHECKING_BROWSER = """<!DOCTYPE HTML><html lang="en-US"><head><meta charset="UTF-8" />
<title>Just a moment...</title></head><body style="background-color:#fff">
<table width="100%" height="100%" cellpadding="20"><tr><td align="center" valign="middle">
<div class="cf-browser-verification cf-im-under-attack"><noscript><h1 style="color:#bd2426;">
Please turn JavaScript on and reload the page.</h1></noscript><div id="cf-content">
<h1>Checking your browser before accessing example-blog.org.</h1>
<p>This process is automatic. Your browser will redirect to your requested content shortly.</p>
<p id="cf-spinner-allow-5-secs">Please allow up to 5 seconds&hellip;</p></div>
<form class="challenge-form" id="challenge-form" action="/?__cf_chl_jschl_tk__=abc" method="POST"></form>
</div><div class="attribution">DDoS protection by <a href="https://www.cloudflare.com/">Cloudflare</a>
<br />Ray ID: 5f1a2b3c4d5e6f70</div></td></tr></table></body></html>"""

CLOUDFLARE_BLOCKED = """<!DOCTYPE html><html class="no-js" lang="en-US"><head>
<title>Attention Required! | Cloudflare</title></head><body><div id="cf-wrapper">
<div id="cf-error-details" class="cf-error-details-wrapper"><div class="cf-wrapper cf-header
cf-error-overview">
<h1 data-translate="block_headline">Sorry, you have been blocked</h1>
<h2 class="cf-subheadline">You are unable to access example-shop.com</h2></div>
<div class="cf-section cf-wrapper"><div class="cf-columns two"><div class="cf-column">
<h2 data-translate="blocked_why_headline">Why have I been blocked?</h2>
<p>This website is using a security service to protect itself from online attacks. The action you just
performed triggered the security solution.</p></div><div class="cf-column">
<h2>What can I do to resolve this?</h2><p>You can email the site owner to let them know you were blocked.</p>
</div></div></div></div></div></body></html>"""

DATADOME = """<html lang="en"><head><title>example-retail.com</title>
<style>#cmsg{animation: A 1.5s;}@keyframes A{0%{opacity:0;}99%{opacity:0;}100%{opacity:1;}}</style></head>
<body style="margin:0"><p id="cmsg">Please enable JS and disable any ad blocker</p>
<script data-cfasync="false">var dd={'rt':'c','cid':'AHrlqAAAAAMA','hsh':'2211F522B61E269B869FA6EAFFB5E1',
't':'fe','s':17434,'e':'abc','host':'geo.captcha-delivery.com'}</script>
<script data-cfasync="false" src="https://ct.captcha-delivery.com/c.js"></script></body></html>"""

PERIMETERX = """<!DOCTYPE html><html lang="en"><head><meta charset="utf-8">
<title>Access to this page has been denied</title></head><body>
<div class="container"><h1>Please verify you are a human</h1>
<p>Press &amp; Hold to confirm you are a human (and not a bot).</p><div id="px-captcha"></div>
<p>Access to this page has been denied because we believe you are using automation tools to browse the
website.</p><p>Reference ID: 7e3a3c1e-1f2b-11ef-9c3d-5a6b7c8d9e0f</p></div>
<script>window._pxAppId = 'PXabc123';window._pxJsClientSrc = '/abc123/init.js';</script></body></html>"""

INCAPSULA = """<html style="height:100%"><head><META NAME="ROBOTS" CONTENT="NOINDEX, NOFOLLOW">
<meta name="format-detection" content="telephone=no"></head><body style="margin:0px;height:100%">
<iframe id="main-iframe" src="/_Incapsula_Resource?CWUDNSAI=27&xinfo=14-12345-0%200NNN&incident_id=123-456"
frameborder=0 width="100%" height="100%">Request unsuccessful. Incapsula incident ID: 123000456</iframe>
</body></html>"""

GOOGLE_SORRY = """<html><head><title>https://www.google.com/search?q=river</title></head><body>
<div><form id="captcha-form" action="index" method="post"><div class="g-recaptcha" data-sitekey="6Le"></div>
</form><hr><div id="infoDiv">Our systems have detected unusual traffic from your computer network.
This page checks to see if it's really you sending the requests, and not a robot.</div></div></body></html>"""

YAHOO_CONSENT = """<!DOCTYPE html><html lang="en-GB"><head><title>Yahoo is part of the Yahoo family
of brands</title></head>
<body><div class="consent-form"><h2>Yahoo is part of the Yahoo family of brands</h2>
<p>The sites and apps that we own and operate, including Yahoo and AOL, and our digital advertising
service.</p>
<h3>How we use your data</h3><p>We, and our 239 partners, store and/or access information on a device, such as
cookies, and process personal data, such as IP addresses and cookie identifiers, to provide
personalised ads and content, ad and content measurement, audience insights and product development.</p>
<p>Some partners process your data based on legitimate interest. You can object to this in your privacy
settings.</p><p>Select 'Accept all' to agree or 'Reject all' to decline. Select 'Manage privacy settings' to
make your choices. You can change your choices at any time by visiting Your privacy controls.</p>
<form method="post"><button name="agree" value="agree">Accept all</button>
<button name="reject" value="reject">Reject all</button><a href="/v2/partners">Manage privacy settings</a>
</form></div></body></html>"""

GOOGLE_CONSENT = """<html lang="en"><head><title>Before you continue to Google</title></head><body>
<div><h1>Before you continue to Google</h1><p>We use cookies and data to deliver and maintain Google services,
track outages and protect against spam, fraud and abuse, and measure audience engagement and site
statistics.</p>
<p>If you choose to 'Accept all', we will also use cookies and data to develop and improve new
services, deliver
and measure the effectiveness of ads, and show personalised content. If you choose to 'Reject all',
we will not
use cookies for these additional purposes.</p><form><button>Reject all</button><button>Accept all</button>
</form><a href="/settings">More options</a></div></body></html>"""

PAYWALL = """<html><head><title>Budget vote | The Daily</title></head><body><article><h1>Council
passes budget</h1>
<p>The council voted late on Tuesday on the new budget.</p>
<div class="paywall"><p>This article is for subscribers only. Subscribe now to continue reading, or sign in
if you are already a subscriber.</p></div></article></body></html>"""

WALLS = {
    "cloudflare-just-a-moment": (CLOUDFLARE_JUST_A_MOMENT, BLOCKED),
    "cloudflare-checking-browser": (CLOUDFLARE_CHECKING_BROWSER, BLOCKED),
    "cloudflare-blocked": (CLOUDFLARE_BLOCKED, BLOCKED),
    "datadome": (DATADOME, BLOCKED),
    "perimeterx": (PERIMETERX, BLOCKED),
    "incapsula": (INCAPSULA, BLOCKED),
    "google-unusual-traffic": (GOOGLE_SORRY, BLOCKED),
    "yahoo-consent": (YAHOO_CONSENT, BLOCKED),
    "google-consent": (GOOGLE_CONSENT, BLOCKED),
    "paywall": (PAYWALL, PAYWALLED),
}


def _reason_for(html: str) -> str | None:
    """As the companion does it: extract the page, then ask about its text and its markup."""
    try:
        doc = html_to_document("https://example.org/a", html, max_chars=200_000)
    except NotReadable as exc:  # a check with no text at all is refused by the extractor
        return exc.reason
    return wall_reason(doc.text, html=html, title=doc.title)


@pytest.mark.parametrize("name", sorted(WALLS))
def test_walls_are_recognised(name: str) -> None:
    html, reason = WALLS[name]
    assert _reason_for(html) == reason


def _article(body: str, words: int = 600) -> str:
    filler = " ".join(
        f"Sentence {k} of the report adds one more measured detail about the river and its gauges."
        for k in range(words // 15)
    )
    return (
        "<html><head><title>Report</title></head><body><article><h1>Report</h1>"
        f"<p>{body}</p><p>{filler}</p></article></body></html>"
    )


ARTICLES_THAT_MENTION_WALLS = {
    "captcha": _article(
        "Researchers showed that image CAPTCHAs asking you to verify you are human are solved by bots more "
        "often than by people, and that the 'Just a moment...' page of Cloudflare delays readers by seconds."
    ),
    "subscribe": _article(
        "The paper asked readers to subscribe now to continue reading its investigations, and the number "
        "of readers who are already a subscriber doubled."
    ),
    "cookies": _article(
        "The regulator found that banners with 'Accept all' and 'Reject all' buttons must give both the same "
        "weight; manage cookies links hidden in a footer and legitimate interest claims were fined, as was "
        "the consent screen that hid 'store and/or access information on a device'."
    ),
    "with-a-cookie-banner": _article("The river rose.").replace(
        "<body>",
        '<body><div id="cookie-banner">We use cookies. <button>Accept all</button><button>Reject all'
        "</button> Manage preferences in our cookie settings.</div>",
    ),
    # Bot-protection scripts run on the pages they protect: only the page's length tells.
    "protected-by-scripts": _article("The river rose.").replace(
        "</body>",
        "<script src='/cdn-cgi/challenge-platform/scripts/jsd/main.js'></script>"
        "<script>window._pxAppId='PX1';</script></body>",
    ),
}


@pytest.mark.parametrize("name", sorted(ARTICLES_THAT_MENTION_WALLS))
def test_articles_about_walls_are_not_walls(name: str) -> None:
    assert _reason_for(ARTICLES_THAT_MENTION_WALLS[name]) is None


@pytest.mark.parametrize("page", sorted(PAGES.glob("*.html")), ids=lambda p: p.stem)
def test_fixture_articles_are_not_walls(page: Path) -> None:
    assert _reason_for(page.read_text(encoding="utf-8")) is None


def test_challenge_markup_names_a_refusal() -> None:
    assert challenge_reason(CLOUDFLARE_JUST_A_MOMENT) == BLOCKED
    assert challenge_reason(DATADOME) == BLOCKED
    assert challenge_reason(PERIMETERX) == BLOCKED
    assert (
        challenge_reason("<html><head><title>403 Forbidden</title></head><body>nginx</body></html>") is None
    )


def refusals() -> web.Application:
    async def page(request: web.Request) -> web.Response:
        status = int(request.match_info["status"])
        kind = request.match_info["kind"]
        headers = {"cf-mitigated": "challenge"} if kind == "header" else {}
        body = {
            "cloudflare": CLOUDFLARE_JUST_A_MOMENT,
            "datadome": DATADOME,
            "header": "",
            "plain": "Forbidden",
        }
        return web.Response(status=status, text=body[kind], content_type="text/html", headers=headers)

    app = web.Application()
    app.router.add_get("/{status}/{kind}", page)
    return app


@pytest.fixture
async def refusing() -> AsyncIterator[TestServer]:
    server = TestServer(refusals(), host="127.0.0.1", port=free_port())
    await server.start_server()
    yield server
    await server.close()


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("/403/cloudflare", BLOCKED),
        ("/503/cloudflare", BLOCKED),
        ("/429/datadome", BLOCKED),
        ("/403/header", BLOCKED),
        ("/403/plain", "http 403 (forbidden or paywalled)"),
        ("/429/plain", "http 429 (the site is rate-limiting)"),
    ],
)
async def test_refused_responses_that_are_bot_checks_say_so(
    refusing: TestServer, path: str, reason: str
) -> None:
    policy = AddressPolicy(frozenset({f"127.0.0.1:{refusing.port}"}))
    async with PageFetcher(Limits(total_timeout_s=4.0, connect_timeout_s=2.0), policy) as fetcher:
        with pytest.raises(SourceUnavailable) as caught:
            await fetcher.fetch(f"http://127.0.0.1:{refusing.port}{path}")
    assert caught.value.reason == reason


# French walls, after Le Monde's and Le Figaro's paywalls, Didomi's consent page and
# Cloudflare's French check; each read in the page's language as the loader reads it.
FRENCH_PAYWALL = """<html lang="fr"><head><title>Le climat en 2050 | Le Quotidien</title></head><body>
<article><h1>Le climat en 2050 : ce que disent les modèles</h1>
<p>Les modèles du GIEC prévoient un réchauffement de deux degrés d'ici le milieu du siècle.</p>
<p>Il vous reste 85 % de cet article à lire. La suite est réservée aux abonnés.</p>
<p>Déjà abonné ? Se connecter. Abonnez-vous dès 1 € le premier mois.</p></article></body></html>"""
FRENCH_CONSENT = """<html lang="fr"><head><title>Le Quotidien</title></head><body><div class="didomi-popup">
<h1>Nous respectons votre vie privée</h1><p>Nos partenaires et nous utilisons des cookies pour
stocker et/ou accéder à des informations sur un appareil, afficher des publicités et contenu
personnalisés et mesurer leur performance, sur la base de votre consentement ou de l'intérêt
légitime.</p><button>Tout accepter</button><button>Continuer sans accepter</button>
<a href="#">Paramétrer les cookies</a></div></body></html>"""
FRENCH_CHECK = """<html lang="fr"><head><title>Un instant…</title></head><body><main>
<h1>www.le-quotidien.fr</h1><p>Vérification que vous êtes un humain. Cela peut prendre quelques
secondes.</p><p>www.le-quotidien.fr doit vérifier la sécurité de votre connexion avant de
continuer.</p></main></body></html>"""


@pytest.mark.parametrize(
    "html, reason",
    [(FRENCH_PAYWALL, PAYWALLED), (FRENCH_CONSENT, BLOCKED), (FRENCH_CHECK, BLOCKED)],
    ids=["paywall", "consent", "check"],
)
def test_french_walls_are_recognised_in_the_pages_language(html: str, reason: str) -> None:
    doc = html_to_document("https://example.fr/a", html, max_chars=200_000)
    assert doc.language == "fr"
    assert wall_reason(doc.text, title=doc.title, language=doc.language) == reason
    # Read as another language's page, its French wording says nothing (the markup is plain).
    assert wall_reason(doc.text, title=doc.title, language="de") is None


def test_a_french_article_that_mentions_subscribing_is_not_a_wall() -> None:
    body = " ".join(
        f"La phrase {k} du reportage ajoute un détail mesuré sur le fleuve et ses stations de jaugeage."
        for k in range(40)
    )
    html = (
        "<html lang='fr'><head><title>Reportage</title></head><body><article><h1>Reportage</h1>"
        "<p>Le journal a demandé à ses lecteurs de s'abonner : « Abonnez-vous », disait la bannière, "
        f"et les lecteurs déjà abonnés ont doublé.</p><p>{body}</p></article></body></html>"
    )
    doc = html_to_document("https://example.fr/b", html, max_chars=200_000)
    assert doc.language == "fr" and wall_reason(doc.text, title=doc.title, language="fr") is None


def test_english_wording_is_read_on_a_page_in_any_language() -> None:
    text = "Just a moment... Verifying you are human. This may take a few seconds."
    assert wall_reason(text, language="de") == BLOCKED


def test_a_refused_response_with_a_french_check_title_is_a_block() -> None:
    assert challenge_reason(FRENCH_CHECK) == BLOCKED


# Walls in the other languages CiteLens reads pages in, after their large sites' paywalls, the TCF
# consent banners' official wording and the bot checks' translations; each read in the page's
# language, as the loader reads it.
WALLS_BY_LANGUAGE = {
    ("de", "paywall"): (
        PAYWALLED,
        "Was die Modelle für 2050 sagen. Die Modelle sagen eine Erwärmung um zwei Grad voraus. "
        "Dieser Artikel ist nur für Abonnenten verfügbar. Jetzt abonnieren und weiterlesen. "
        "Sie sind bereits Abonnent? Hier anmelden.",
    ),
    ("de", "consent"): (
        BLOCKED,
        "Datenschutz-Einstellungen. Wir und unsere Partner verwenden Cookies, um Informationen auf einem "
        "Gerät speichern und/oder abrufen zu können und personalisierte Anzeigen und Inhalte zu zeigen, "
        "auf Grundlage Ihrer Einwilligung oder unseres berechtigten Interesses. Alle akzeptieren. "
        "Alle ablehnen. Einstellungen verwalten.",
    ),
    ("de", "check"): (
        BLOCKED,
        "Überprüfen, ob Sie ein Mensch sind. Dies kann einige Sekunden dauern. www.beispiel.de muss die "
        "Sicherheit Ihrer Verbindung überprüfen, bevor Sie fortfahren können.",
    ),
    ("es", "paywall"): (
        PAYWALLED,
        "El clima en 2050. Los modelos prevén un calentamiento de dos grados. Este contenido es exclusivo "
        "para suscriptores. Suscríbete ahora por 1 euro el primer mes. ¿Ya eres suscriptor? Inicia sesión.",
    ),
    ("es", "consent"): (
        BLOCKED,
        "Utilizamos cookies propias y de terceros. Nosotros y nuestros socios necesitamos almacenar la "
        "información en un dispositivo y/o acceder a ella para mostrar anuncios y contenido personalizados, "
        "con su permiso o por interés legítimo. Aceptar todo. Rechazar todo. Configurar cookies.",
    ),
    ("pt", "paywall"): (
        PAYWALLED,
        "O clima em 2050. Os modelos preveem um aquecimento de dois graus. Este conteúdo é exclusivo "
        "para assinantes. Assine agora por R$ 1,90 no primeiro mês. Já é assinante? Faça login para "
        "continuar lendo.",
    ),
    ("it", "paywall"): (
        PAYWALLED,
        "Il clima nel 2050. I modelli prevedono un riscaldamento di due gradi. Questo articolo è riservato "
        "agli abbonati. Abbonati ora a 1 euro al mese. Sei già abbonato? Accedi per continuare a leggere.",
    ),
    ("ru", "paywall"): (
        PAYWALLED,
        "Климат в 2050 году. Модели предсказывают потепление на два градуса. Материал доступен только "
        "подписчикам. Оформите подписку, чтобы читать дальше. Уже подписаны? Войдите, чтобы продолжить.",
    ),
    ("zh", "paywall"): (
        PAYWALLED,
        "2050年的气候：模型预测本世纪中叶将升温两度。"
        "本文为付费会员专享内容，订阅后继续阅读全文。已是订阅用户？请登录。",
    ),
    ("zh", "consent"): (
        BLOCKED,
        "我们使用Cookie来改善您的体验并展示个性化广告。"
        "我们的合作伙伴基于您的同意或正当利益处理数据。接受全部 拒绝全部 管理Cookie偏好",
    ),
    ("ja", "paywall"): (
        PAYWALLED,
        "2050年の気候。モデルは今世紀半ばまでに2度の温暖化を予測している。この記事は有料会員限定です。"
        "続きを読むには、有料会員登録が必要です。すでに会員の方はログインしてください。",
    ),
    ("ko", "paywall"): (
        PAYWALLED,
        "2050년의 기후. 모델은 금세기 중반까지 2도의 온난화를 예측한다. 이 기사는 유료 회원 전용입니다. "
        "구독하고 계속 읽으세요. 이미 구독 중이신가요? 로그인",
    ),
}


def _page(language: str, text: str) -> str:
    head = f"<html lang='{language}'><head><title>—</title></head>"
    return f"{head}<body><article><p>{text}</p></article></body></html>"


@pytest.mark.parametrize("key", sorted(WALLS_BY_LANGUAGE), ids=lambda k: "-".join(k))
def test_walls_are_recognised_in_each_language_s_wording(key: tuple[str, str]) -> None:
    language, _ = key
    reason, text = WALLS_BY_LANGUAGE[key]
    doc = html_to_document(f"https://example.{language}/a", _page(language, text), max_chars=200_000)
    assert doc.language == language
    assert wall_reason(doc.text, title=doc.title, language=doc.language) == reason
    # Read as English's alone (a page in a language with no wording of its own), it says nothing.
    assert wall_reason(doc.text, title=doc.title, language="en") is None


DATA = Path(__file__).resolve().parents[4] / "shared" / "data"
# Real prose in each language (../shared/data beside the clone in CI; a missing file fails).
PROSE = {
    "de": "multilingual/xnli_de_dev.jsonl.gz",
    "es": "multilingual/xnli_es_dev.jsonl.gz",
    "pt": "multilingual/assin2_pt_train.jsonl.gz",
    "it": "multilingual/rte3_it_dev.jsonl.gz",
    "ru": "multilingual/xnli_ru_dev.jsonl.gz",
    "zh": "multilingual/xnli_zh_dev.jsonl.gz",
    "ja": "multilingual/jsick_ja_train.jsonl.gz",
    "ko": "multilingual/xnli_ko_dev.jsonl.gz",
    "th": "multilingual/xnli_th_dev.jsonl.gz",
}


def _prose(language: str, sentences: int) -> str:
    path = DATA / PROSE[language]
    assert path.exists(), f"{path} is missing: CI runs with ../shared beside the clone"
    seen: dict[str, None] = {}
    with gzip.open(path, "rt", encoding="utf-8") as lines:
        for line in lines:
            seen.setdefault(json.loads(line)["premise"].strip(), None)
            if len(seen) == sentences:
                break
    return " ".join(seen)


@pytest.mark.parametrize("language", sorted(PROSE))
def test_an_article_in_any_language_that_carries_wall_wording_is_not_a_wall(language: str) -> None:
    # About a thousand words of real prose, with every wall's wording of its language and English's
    # inside it, as a subscription box or a consent banner left in the text. Chinese, Japanese and
    # Thai write no spaces between words: counted in spaces, such an article was a few dozen words
    # long, and any such wording on it made it a wall.
    walls = " ".join(text for (lang, _), (_, text) in WALLS_BY_LANGUAGE.items() if lang == language)
    english = "We use cookies. Accept all. Reject all. Manage preferences. Subscribe now to continue reading."
    text = f"{_prose(language, 40)} {walls} {english} {_prose(language, 80)}"
    doc = html_to_document(f"https://example.{language}/b", _page(language, text), max_chars=200_000)
    assert doc.language == language
    assert wall_reason(doc.text, title=doc.title, language=doc.language) is None
