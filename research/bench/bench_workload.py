"""A seeded, generated workload for research/bench/bench.py and research/bench/loadtest.py: cited
pages and answers.

Every word is generated here from small word lists, with `random.Random(seed)`, so the same seed
gives the same pages and answers on every machine and nothing is copied from anywhere. Pages are
HTML articles of about `words` words in paragraphs of 3-7 sentences, wrapped in the usual
navigation, sidebar and footer so that extraction does its real work. Each answer sentence is
built from a sentence of the page it cites: copied, paraphrased, given a wrong number, or taken
from another page (a citation that does not support it), in a fixed seeded mix.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

__all__ = ["Workload", "make_workload", "page_html"]

_TOPICS = [
    (
        "river",
        ["delta", "floodplain", "sediment", "channel", "levee"],
        ["Varnholt", "Lessing Bay", "the Oru valley"],
    ),
    (
        "glacier",
        ["moraine", "icefield", "crevasse", "meltwater", "cirque"],
        ["Kestrel Peak", "the Haldor range", "Sorvik"],
    ),
    (
        "forest",
        ["canopy", "understory", "seedling", "clearing", "peat"],
        ["Marrow Wood", "the Tennet hills", "Olmstead"],
    ),
    (
        "harbour",
        ["quay", "breakwater", "dredger", "tide gauge", "pier"],
        ["Port Callen", "Ashby Sound", "Rennick"],
    ),
    (
        "orchard",
        ["graft", "rootstock", "blossom", "cider press", "hedgerow"],
        ["Fenwold", "the Lurr plain", "Dunmere"],
    ),
    (
        "observatory",
        ["telescope", "dome", "spectrograph", "star chart", "mirror"],
        ["Mount Ilsa", "Carrow Ridge", "Bexley"],
    ),
    (
        "railway",
        ["viaduct", "signal box", "cutting", "goods yard", "tunnel"],
        ["Hartsfield", "the Wend gap", "Molloy Junction"],
    ),
    (
        "marsh",
        ["reed bed", "sluice", "heron colony", "salt pan", "dyke"],
        ["Ebbmoor", "the Calder flats", "Strand"],
    ),
    (
        "quarry",
        ["limestone face", "kiln", "spoil heap", "incline", "crusher"],
        ["Greyholm", "Otterby", "the Vell scar"],
    ),
    (
        "vineyard",
        ["terrace", "press house", "cellar", "trellis", "harvest"],
        ["Castel Brio", "the Aune slopes", "Marlo"],
    ),
    (
        "lighthouse",
        ["lantern", "fog signal", "keeper's cottage", "reef", "beacon"],
        ["Skerry Point", "Tollan Head", "Ravensey"],
    ),
    (
        "mill",
        ["waterwheel", "millrace", "grindstone", "weir", "granary"],
        ["Abbot's Mill", "the Tane brook", "Corley"],
    ),
    (
        "bridge",
        ["span", "pier footing", "toll house", "arch", "parapet"],
        ["Kingsford", "the Aske gorge", "Pellow"],
    ),
    (
        "library",
        ["reading room", "manuscript", "catalogue", "archive", "map room"],
        ["St Brannoc", "Weltham", "Old Cross"],
    ),
    (
        "mine",
        ["shaft", "adit", "winding engine", "ore vein", "pump house"],
        ["Trevanion", "Black Tor", "Hessle"],
    ),
]
_PEOPLE = [
    "Ada Brennan",
    "Tomas Ilves",
    "Mira Castell",
    "Jonas Petrak",
    "Elin Varga",
    "Oskar Lind",
    "Nadia Ferro",
    "Henrik Dale",
    "Lucia Marsh",
    "Pavel Orlov",
    "Ines Quarry",
    "Samuel Achebe",
]
_ADJ = [
    "northern",
    "old",
    "narrow",
    "eastern",
    "broad",
    "lower",
    "upper",
    "quiet",
    "busy",
    "western",
    "steep",
    "ancient",
]
_VERB_PAST = ["recorded", "moved", "carried", "lost", "gained", "produced", "stored", "shipped", "measured"]
_VERB_PRES = ["supports", "shelters", "feeds", "shapes", "drains", "protects", "attracts", "limits"]
_UNITS = ["tonnes", "hectares", "kilometres", "metres", "litres", "visitors", "workers", "boats"]
_SEASONS = ["spring", "summer", "autumn", "winter", "dry season", "wet season"]
_FILLER = ["local records", "the parish survey", "a later study", "the annual report", "older maps"]
_SYNONYMS = {
    "recorded": "logged",
    "moved": "shifted",
    "carried": "transported",
    "produced": "yielded",
    "measured": "gauged",
    "supports": "sustains",
    "shelters": "houses",
    "protects": "guards",
    "first": "initially",
    "most": "the majority of",
    "old": "historic",
    "narrow": "slim",
}


# The French workload (issue 14: a French answer's speed with the multilingual model): the same
# shapes, French words; the grammar is rough (genders are not matched), the length is realistic.
_TOPICS_FR = [
    (
        "fleuve",
        ["delta", "plaine inondable", "sédiment", "chenal", "digue"],
        ["Varnholt", "la baie de Lessing"],
    ),
    (
        "glacier",
        ["moraine", "champ de glace", "crevasse", "eau de fonte", "cirque"],
        ["le pic Kestrel", "Sorvik"],
    ),
    ("forêt", ["canopée", "sous-bois", "semis", "clairière", "tourbière"], ["le bois de Marrow", "Olmstead"]),
    ("port", ["quai", "brise-lames", "drague", "marégraphe", "jetée"], ["Port Callen", "Rennick"]),
    ("verger", ["greffe", "porte-greffe", "floraison", "pressoir", "haie"], ["Fenwold", "Dunmere"]),
    (
        "observatoire",
        ["télescope", "coupole", "spectrographe", "carte du ciel", "miroir"],
        ["le mont Ilsa", "Bexley"],
    ),
    (
        "chemin de fer",
        ["viaduc", "poste d'aiguillage", "tranchée", "gare de triage", "tunnel"],
        ["Hartsfield"],
    ),
    ("marais", ["roselière", "écluse", "héronnière", "marais salant", "digue"], ["Ebbmoor", "Strand"]),
]
_VERB_PAST_FR = ["enregistré", "déplacé", "transporté", "perdu", "gagné", "produit", "stocké", "mesuré"]
_VERB_PRES_FR = ["soutient", "abrite", "nourrit", "façonne", "draine", "protège", "attire", "limite"]
_UNITS_FR = ["tonnes", "hectares", "kilomètres", "mètres", "litres", "visiteurs", "ouvriers", "bateaux"]
_SEASONS_FR = ["au printemps", "en été", "en automne", "en hiver", "à la saison sèche"]
_ADJ_FR = ["ancien", "étroit", "large", "vieux", "calme", "profond"]
_FILLER_FR = ["les archives locales", "le relevé paroissial", "une étude ultérieure", "le rapport annuel"]
_SYNONYMS_FR = {
    "enregistré": "consigné",
    "transporté": "acheminé",
    "produit": "fourni",
    "mesuré": "relevé",
    "soutient": "entretient",
    "abrite": "héberge",
    "protège": "préserve",
    "ancien": "vieux",
    "étroit": "resserré",
}


# Japanese (issue 39: a Japanese answer's cost beside an English one's): no spaces between words,
# sentences end with 。, numbers sit inside the words.
_TOPICS_JA = [
    ("川", ["三角州", "氾濫原", "堆積物", "水路", "堤防"], ["ヴァーンホルト", "レッシング湾"]),
    ("氷河", ["モレーン", "氷原", "クレバス", "融解水", "カール"], ["ケストレル峰", "ソルヴィク"]),
    ("森", ["林冠", "下層植生", "苗木", "空き地", "泥炭地"], ["マロウの森", "オルムステッド"]),
    ("港", ["岸壁", "防波堤", "浚渫船", "検潮所", "桟橋"], ["キャレン港", "レニック"]),
    ("果樹園", ["接ぎ木", "台木", "開花", "圧搾機", "生け垣"], ["フェンウォルド", "ダンミア"]),
    ("天文台", ["望遠鏡", "ドーム", "分光器", "星図", "反射鏡"], ["イルサ山", "ベクスリー"]),
    ("鉄道", ["高架橋", "信号所", "切り通し", "操車場", "トンネル"], ["ハーツフィールド"]),
    ("湿地", ["ヨシ原", "水門", "サギの営巣地", "塩田", "堤"], ["エブムーア", "ストランド"]),
]
_PEOPLE_JA = ["ブレナン", "イルヴェス", "カステル", "ペトラク", "ヴァルガ", "リンド", "フェッロ", "デイル"]
_VERB_PAST_JA = ["記録した", "運んだ", "失った", "得た", "生産した", "蓄えた", "測定した"]
_VERB_PRES_JA = ["支えている", "守っている", "養っている", "形作っている", "潤している", "引き寄せている"]
_UNITS_JA = ["トン", "ヘクタール", "キロメートル", "メートル", "リットル", "人の訪問者", "隻の船"]
_SEASONS_JA = ["春", "夏", "秋", "冬", "乾季"]
_ADJ_JA = ["古い", "狭い", "広い", "静かな", "深い", "北の"]
_FILLER_JA = ["地元の記録", "教区の台帳", "後の調査", "年次報告書"]
_SYNONYMS_JA = {
    "記録した": "記した",
    "運んだ": "輸送した",
    "生産した": "産出した",
    "測定した": "計測した",
    "支えている": "維持している",
    "守っている": "保護している",
    "古い": "昔からの",
    "狭い": "細い",
}


def _sentence_ja(rng: random.Random, topic: tuple[str, list[str], list[str]]) -> str:
    name, nouns, places = topic
    noun, noun2, noun3 = rng.sample(nouns, 3)
    place, person = rng.choice(places), rng.choice(_PEOPLE_JA)
    year, num = rng.randint(1780, 2024), rng.choice([rng.randint(2, 99), rng.randint(100, 9999)])
    past, present, unit = rng.choice(_VERB_PAST_JA), rng.choice(_VERB_PRES_JA), rng.choice(_UNITS_JA)
    templates = [
        f"{year}年、{place}の{name}は{noun}を通じて{num}{unit}を{past}。",
        f"{person}によると、{place}近くの{rng.choice(_ADJ_JA)}{noun}は{rng.choice(_SEASONS_JA)}に{noun2}を{present}。",
        f"{noun}は{year}年に{person}が初めて記述したもので、当時{place}の{noun2}はまだ{rng.choice(_ADJ_JA)}ままだった。",
        f"{person}は{year}年に{place}の{noun}と{noun2}の間で{num}{unit}を{rng.choice(_VERB_PAST_JA)}。",
        f"{name}の{noun}は{noun2}と{noun3}を{present}と{rng.choice(_FILLER_JA)}は示している。",
        f"{year}年までに{place}の{noun2}は約{num}{unit}を{rng.choice(_VERB_PAST_JA)}。",
    ]
    return rng.choice(templates)


def _paraphrase_ja(rng: random.Random, sentence: str) -> str:
    if "によると、" in sentence:  # drop the attribution, keep the claim
        sentence = sentence.split("によると、", 1)[1]
    for word, other in _SYNONYMS_JA.items():
        if word in sentence and rng.random() < 0.7:
            sentence = sentence.replace(word, other, 1)
    return sentence


def _sentence_fr(rng: random.Random, topic: tuple[str, list[str], list[str]]) -> str:
    name, nouns, places = topic
    noun, noun2, noun3 = rng.sample(nouns, 3)
    place, person = rng.choice(places), rng.choice(_PEOPLE)
    year, num = rng.randint(1780, 2024), rng.choice([rng.randint(2, 99), rng.randint(100, 9999)])
    past, present, unit = rng.choice(_VERB_PAST_FR), rng.choice(_VERB_PRES_FR), rng.choice(_UNITS_FR)
    templates = [
        f"En {year}, le {name} de {place} a {past} {num} {unit} par son {noun}.",
        f"Selon {person}, le {noun} {rng.choice(_ADJ_FR)} près de {place} {present} le {noun2} "
        f"{rng.choice(_SEASONS_FR)}.",
        f"Le {noun} a été décrit pour la première fois par {person} en {year}, quand le {noun2} de "
        f"{place} était encore {rng.choice(_ADJ_FR)}.",
        f"{person} a mesuré {num} {unit} entre le {noun} et le {noun2} de {place} en {year}.",
        f"Le {noun} du {name} {present} le {noun2} et le {noun3}, comme le montrent "
        f"{rng.choice(_FILLER_FR)}.",
        f"En {year}, le {noun2} de {place} avait {rng.choice(_VERB_PAST_FR)} environ {num} {unit}.",
    ]
    return rng.choice(templates)


def _paraphrase_fr(rng: random.Random, sentence: str) -> str:
    if sentence.startswith("Selon ") and "," in sentence:  # drop the attribution, keep the claim
        sentence = sentence.split(", ", 1)[1]
        sentence = sentence[0].upper() + sentence[1:]
    words = sentence.rstrip(".").split(" ")
    return " ".join(_SYNONYMS_FR.get(w, w) if rng.random() < 0.7 else w for w in words) + "."


def _sentence(rng: random.Random, topic: tuple[str, list[str], list[str]]) -> str:
    name, nouns, places = topic
    noun, noun2, noun3 = rng.sample(nouns, 3)
    place, person = rng.choice(places), rng.choice(_PEOPLE)
    year, num = rng.randint(1780, 2024), rng.choice([rng.randint(2, 99), rng.randint(100, 9999)])
    past, present, unit = rng.choice(_VERB_PAST), rng.choice(_VERB_PRES), rng.choice(_UNITS)
    templates = [
        f"In {year}, the {name} at {place} {past} {num} {unit} through its {noun}.",
        f"According to {person}, the {rng.choice(_ADJ)} {noun} near {place} {present} the {noun2} "
        f"every {rng.choice(_SEASONS)}.",
        f"The {noun} was first described by {person} in {year}, when the {noun2} of {place} was still "
        f"{rng.choice(_ADJ)}.",
        f"Most of the {noun} along the {name} {rng.choice(_VERB_PRES)} the {noun2} during the "
        f"{rng.choice(_SEASONS)}, which also {rng.choice(_VERB_PRES)} the {noun3}.",
        f"{person} measured {num} {unit} between the {noun} and the {noun2} of {place} in {year}.",
        f"The {rng.choice(_ADJ)} {noun} of the {name} {rng.choice(_VERB_PRES)} the {noun2}, as "
        f"{rng.choice(_FILLER)} show.",
        f"By {year} the {noun2} at {place} had {rng.choice(_VERB_PAST)} about {num} {rng.choice(_UNITS)}.",
    ]
    return rng.choice(templates)


def _paraphrase(rng: random.Random, sentence: str) -> str:
    words = sentence.rstrip(".").split(" ")
    if words[0] == "According" and "," in sentence:  # drop the attribution, keep the claim
        words = sentence.rstrip(".").split(", ", 1)[1].split(" ")
        words[0] = words[0].capitalize()
    words = [_SYNONYMS.get(w, w) if rng.random() < 0.7 else w for w in words]
    return " ".join(words) + "."


def _wrong_number(rng: random.Random, sentence: str) -> str:
    if " " not in sentence:  # Japanese: the numbers sit inside the words
        spots = list(re.finditer(r"\d+", sentence))
        if not spots:
            return sentence
        found = rng.choice(spots)
        return sentence[: found.start()] + str(int(found.group()) * 3 + 7) + sentence[found.end() :]
    words = sentence.split(" ")
    spots = [i for i, w in enumerate(words) if w.rstrip(".,").isdigit()]
    if not spots:
        return sentence.replace(" the ", " no ", 1)
    i = rng.choice(spots)
    digits = words[i].rstrip(".,")
    words[i] = words[i].replace(digits, str(int(digits) * 3 + 7))
    return " ".join(words)


def _words(sentence: str) -> int:
    """Words in a sentence; a Japanese one has no spaces, and counts a word for two characters (an
    approximation: its pages hold about as much text to read as the others')."""
    return len(sentence.split()) if " " in sentence else len(sentence) // 2


@dataclass
class Workload:
    """Pages by path, and one answer (text with [n] markers, citations with offsets) citing them."""

    name: str
    pages: dict[str, tuple[str, list[list[str]]]] = field(default_factory=dict)  # path: (title, paragraphs)
    question: str = ""
    text: str = ""
    citations: list[dict[str, object]] = field(default_factory=list)  # url holds the path until `body`
    kinds: list[str] = field(default_factory=list)
    language: str = "en"

    def words(self, path: str) -> int:
        return sum(_words(s) for p in self.pages[path][1] for s in p)

    def body(self, base: str, *, stream: bool = True) -> dict[str, object]:
        citations = [{**c, "url": base + str(c["url"])} for c in self.citations]
        return {
            "page": {
                "url": f"https://engine.example/search/{self.name}",
                "engine": "bench",
                "title": self.question,
                "query": self.question,
                "captured_at": "2026-11-30T09:00:00Z",
            },
            "answer": {"text": self.text},
            "citations": citations,
            "options": {"stream": stream},
        }


def make_workload(
    name: str, seed: int, *, pages: int, sentences: int, words: int = 2_500, language: str = "en"
) -> Workload:
    rng = random.Random(f"{name}:{seed}")
    french, japanese = language == "fr", language == "ja"
    pool, sentence_of, paraphrase = {
        "fr": (_TOPICS_FR, _sentence_fr, _paraphrase_fr),
        "ja": (_TOPICS_JA, _sentence_ja, _paraphrase_ja),
    }.get(language, (_TOPICS, _sentence, _paraphrase))
    topics = rng.sample(pool, pages) if pages <= len(pool) else [rng.choice(pool) for _ in range(pages)]
    question = (
        f"que sait-on du {topics[0][0]} de {topics[0][2][0]}"
        if french
        else f"{topics[0][2][0]}の{topics[0][0]}について何が知られていますか"
        if japanese
        else f"what is known about the {topics[0][0]} at {topics[0][2][0]}"
    )
    work = Workload(name=name, question=question, language=language)
    page_sentences: list[list[str]] = []
    for k, topic in enumerate(topics):
        paragraphs, count = [], 0
        while count < words:
            paragraph = [sentence_of(rng, topic) for _ in range(rng.randint(3, 7))]
            count += sum(_words(s) for s in paragraph)
            paragraphs.append(paragraph)
        work.pages[f"/{name}/page-{k + 1}.html"] = (
            f"Le {topic[0]} de {topic[2][0]} : notes {k + 1}"
            if french
            else f"{topic[2][0]}の{topic[0]}：記録{k + 1}"
            if japanese
            else f"The {topic[0]} at {topic[2][0]}: notes {k + 1}",
            paragraphs,
        )
        page_sentences.append([s for p in paragraphs for s in p])
    paths = list(work.pages)
    # Each page is cited about equally often; every fourth sentence cites a second page too.
    plan = [k % pages for k in range(sentences)]
    rng.shuffle(plan)
    kinds = ["copy", "paraphrase", "paraphrase", "wrong-number", "other-page"]
    text = ""
    for i, k in enumerate(plan):
        kind = kinds[i % len(kinds)] if i else "copy"
        source = rng.choice(page_sentences[k])
        if kind == "paraphrase":
            sentence = paraphrase(rng, source)
        elif kind == "wrong-number":
            sentence = _wrong_number(rng, source)
        elif kind == "other-page":
            sentence = rng.choice(page_sentences[(k + 1) % pages])
        else:
            sentence = source
        cited = [k] + ([(k + 2) % pages] if i % 4 == 3 and pages > 2 else [])
        text += sentence
        for j in cited:
            marker = str(j + 1)
            work.citations.append(
                {"id": f"c{len(work.citations) + 1}", "marker": marker, "url": paths[j], "offset": len(text)}
            )
            text += f"[{marker}]"
        text += ("" if japanese else " ") if (i + 1) % 4 else "\n\n"
        work.kinds.append(kind)
    work.text = text.strip()
    return work


def page_html(title: str, paragraphs: list[list[str]], language: str = "en") -> str:
    """An article page with the boilerplate a real site has around its text."""
    nav = "".join(f"<li><a href='/section/{i}'>Section {i}</a></li>" for i in range(1, 9))
    aside = "".join(f"<li><a href='/related/{i}'>Related story number {i}</a></li>" for i in range(1, 6))
    body = "".join("<p>" + " ".join(p) + "</p>\n" for p in paragraphs)
    return (
        f"<!doctype html><html lang='{language}'><head><meta charset='utf-8'><title>{title}</title></head>"
        "<body>"
        f"<header><nav><ul>{nav}</ul></nav></header><main><article><h1>{title}</h1>\n{body}</article>"
        f"<aside><h2>Related</h2><ul>{aside}</ul></aside></main>"
        f"<footer><p>Copyright 2026 Example Field Notes. All rights reserved.</p></footer></body></html>"
    )
