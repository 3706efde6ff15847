"""Pages that stand in front of the source: bot checks, cookie-consent interstitials, paywalls.

A wall is never judged as the source (a "Just a moment..." page supports nothing and would make
every citation look unsupported); the source is `inaccessible` with the reason returned here.
Pure text functions, no I/O: fetch asks `challenge_reason` about refused responses, the loader
asks `wall_reason` about every extracted page, in the page's language.

Walls' wording is per language (English, French, German, Spanish, Portuguese, Italian, Russian,
Chinese, Japanese, Korean): a page reads its own language's wording and English's, since bot
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
    # The same services' pages and the usual TCF banner and paywall wording of each language's
    # large sites. A word that holds English's "consent" ("consentimiento") is left out: one
    # signal, not two.
    "de": _Wording(
        _words(
            r"einen moment,? bitte",
            r"(überprüfen|überprüfung),? ob sie ein mensch sind",
            r"bestätigen sie, dass sie ein mensch sind",
            r"sind sie ein roboter",
            r"muss die sicherheit ihrer verbindung überprüfen",
            r"zugriff (auf diese seite )?(wurde )?verweigert",
            r"ungewöhnlichen? datenverkehr",
        ),
        _words(
            r"alle (akzeptieren|ablehnen)",
            r"(cookies|alles) (akzeptieren|ablehnen|zulassen)",
            r"(einstellungen|präferenzen|optionen|cookies) (verwalten|anpassen)",
            r"wir (und unsere partner )?(verwenden|nutzen|setzen) cookies",
            r"berechtigten? interesse",
            r"informationen auf einem gerät speichern und/oder abrufen",
            r"personalisierte (anzeigen|werbung) und inhalte",
            r"datenschutz-?einstellungen",
            r"einwilligung",
        ),
        _words(
            r"jetzt (abonnieren|abo abschließen)",
            r"(sie sind )?bereits abonnent",
            r"(dieser artikel|dieser inhalt) ist (nur |exklusiv )?für abonnent",
            r"melden sie sich an,? um (weiterzulesen|den artikel zu lesen)",
            r"weiterlesen mit [a-zäöü]",
        ),
    ),
    "es": _Wording(
        _words(
            r"un momento(\.\.\.|…)",
            r"verificando (que (usted )?es|si eres) (un )?humano",
            r"verifica(r)? que (usted )?eres (un ser )?humano",
            r"¿eres un robot\?",
            r"acceso denegado",
            r"tráfico inusual",
        ),
        _words(
            r"aceptar (todo|todas|las cookies|cookies|y cerrar|y continuar)",
            r"rechazar (todo|todas|las cookies|cookies)",
            r"(configurar|gestionar|personalizar) (las )?(cookies|preferencias|opciones)",
            r"(utilizamos|usamos) cookies",
            r"interés legítimo",
            r"almacenar (la )?información en un dispositivo y/o acceder a ella",
            r"anuncios y contenido personalizados",
        ),
        _words(
            r"suscríbete (ahora|para (seguir|continuar) leyendo)",
            r"¿ya eres suscriptor",
            r"contenido (es )?exclusivo para suscriptores",
            r"inicia sesión para (seguir|continuar) leyendo",
            r"regístrate (gratis )?para (seguir|continuar) leyendo",
        ),
    ),
    "pt": _Wording(
        _words(
            r"(só )?um momento(\.\.\.|…)",
            r"verificando se (você )?é (um )?humano",
            r"(verifique|confirme) que (você )?é (um )?humano",
            r"você é um robô",
            r"acesso negado",
        ),
        _words(
            r"aceitar (todos|tudo|os cookies|cookies)",
            r"rejeitar (todos|tudo|os cookies|cookies)",
            r"(gerenciar|gerir|personalizar|configurar) (as )?(cookies|preferências|opções)",
            r"(usamos|utilizamos) cookies",
            r"interesse legítimo",
            r"armazenar e/ou (aceder a|acessar) informações",
            r"anúncios e conteúdo personalizados",
        ),
        _words(
            r"assine (agora|já)",
            r"já é assinante",
            r"conteúdo (é )?exclusivo para assinantes",
            r"(faça login|entre) para continuar lendo",
            r"cadastre-se (gratuitamente |grátis )?para continuar lendo",
        ),
    ),
    "it": _Wording(
        _words(
            r"(solo )?un momento(\.\.\.|…)",
            r"verifica (che|di essere) (sei )?(un )?umano",
            r"sei un robot\?",
            r"accesso negato",
        ),
        _words(
            r"accetta (tutto|tutti|i cookie)",
            r"rifiuta (tutto|tutti|i cookie)",
            r"(gestisci|personalizza) (le )?(preferenze|opzioni|i cookie)",
            r"(utilizziamo|usiamo) (i )?cookie",
            r"legittimo interesse",
            r"archiviare e/o accedere a informazioni su un dispositivo",
            r"annunci e contenuti personalizzati",
        ),
        _words(
            r"abbonati (ora|subito)",
            r"sei già abbonato",
            r"(contenuto|articolo) (è )?riservato agli abbonati",
            r"accedi per continuare a leggere",
        ),
    ),
    "ru": _Wording(
        _words(
            r"подтвердите, что вы (не робот|человек)",
            r"проверка(,)? (что )?вы (не робот|человек)",
            r"вы робот\?",
            r"доступ (к этой странице )?запрещ[её]н",
            r"необычный трафик",
        ),
        _words(
            r"принять (все|всё)",
            r"отклонить (все|всё)",
            r"настро(ить|йки) (файлов )?cookie",
            r"мы используем (файлы )?cookie",
            r"законн(ый|ого) интерес",
            r"персонализированн(ая|ую|ой) реклам",
        ),
        _words(
            r"оформите подписку",
            r"уже подписаны",
            r"(доступ(но|ен)|материал доступен) только (для )?подписчик",
            r"войдите, чтобы (продолжить|читать)",
        ),
    ),
    "zh": _Wording(
        _words(
            r"(正在)?(验证|驗證|确认|確認)您?(是否)?(是)?(真人|人类|人類)",
            r"您是机器人吗|您是機器人嗎",
            r"(访问|訪問|存取)(被拒绝|被拒絕|遭拒)",
            r"异常流量|異常流量",
        ),
        _words(
            r"(接受|同意|允许|允許)(全部|所有)",
            r"拒绝(全部|所有)|拒絕(全部|所有)",
            r"(管理|设置|設定)(cookie|偏好)",
            r"我们使用 ?cookie|我們使用 ?cookie",
            r"正当利益|正當利益",
            r"个性化广告|個人化廣告",
        ),
        _words(
            r"(订阅|訂閱)(后|後)?(即可)?(继续|繼續)?(阅读|閱讀)",
            r"(登录|登錄|登入)(后|後)(即可)?(继续|繼續)?(阅读|閱讀)",
            r"已是(订阅用户|订户|訂戶|會員)",
            r"(付费|付費)(会员|會員)(专享|專享|独享)",
        ),
    ),
    "ja": _Wording(
        _words(
            r"人間であることを確認",
            r"ロボットではありません",
            r"アクセスが拒否されました",
        ),
        _words(
            r"すべて(を)?(受け入れる|同意する|許可する|拒否する)",
            r"(cookie|クッキー)(の)?設定",
            r"(cookie|クッキー)を使用しています",
            r"正当な利益",
            r"パーソナライズされた広告",
        ),
        _words(
            r"有料会員(限定|の方)",
            r"続きを読むには",
            r"ログインして続きを(読む|お読み)",
            r"すでに会員の方",
        ),
    ),
    "ko": _Wording(
        _words(
            r"사람인지 확인",
            r"로봇이 아닙니다",
            r"액세스가 거부",
        ),
        _words(
            r"모두 (수락|동의|거부)",
            r"쿠키 (설정|허용|거부)",
            r"쿠키를 사용합니다",
            r"정당한 이익",
            r"맞춤형 광고",
        ),
        _words(
            r"구독하고 (계속|전체)",
            r"유료 (회원|구독자) 전용",
            r"로그인하고 (계속|기사)",
            r"이미 구독",
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
    words = _words_in(text)
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
